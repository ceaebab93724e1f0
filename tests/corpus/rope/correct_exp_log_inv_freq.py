# attnprep: rope
# expect: pass
# style: inverse frequencies as exp(-2i/d * log(base)), angles with np.outer, rotate_half by negation and concat
import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"odd feature size {d}")
    inv_freq = np.exp(-np.arange(0, d, 2, dtype=np.float64) / d * np.log(base))
    freqs = np.outer(np.asarray(positions, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    rotated = np.concatenate([-x[..., d // 2:], x[..., : d // 2]], axis=-1)
    return x * np.cos(emb) + rotated * np.sin(emb)
