# attnprep: rope
# expect: pass
# style: complex numbers: pair i is x1[i] + j*x2[i], multiplied by exp(j*theta)
import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2 != 0:
        raise ValueError(f"odd d={d}")
    half = d // 2
    z = x[..., :half] + 1j * x[..., half:]
    freqs = np.exp(-np.log(base) * np.arange(half) * 2 / d)
    z = z * np.exp(1j * np.multiply.outer(np.asarray(positions, dtype=np.float64), freqs))
    return np.concatenate([z.real, z.imag], axis=-1)
