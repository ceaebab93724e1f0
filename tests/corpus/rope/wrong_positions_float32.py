# attnprep: rope
# expect: fail matches-reference
# must-pass: shape position-zero norm-preserving layout direction frequencies positions relative bad-input input-unchanged
# mistake: turns the positions into float32, as Hugging Face's `position_ids.float()` does, before the float64
#          outer product: exact up to 2**24 = 16,777,216, but an odd position past it lands on its even neighbour
# diagnosis: rope-positions-float32
import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    inv_freq = 1.0 / base ** (np.arange(0, d, 2, dtype=np.float64) / d)
    t = np.asarray(positions).astype(np.float32)
    freqs = np.outer(t, inv_freq)  # float64: float32 times float64
    cos, sin = np.cos(freqs), np.sin(freqs)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)
