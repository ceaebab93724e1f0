# attnprep: rope
# expect: pass
# style: KV-cache style: cos/sin tables for 0..max(position) built once, rows picked by fancy indexing; in-place halves of a private copy
import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2 != 0:
        raise ValueError("d must be even")
    half = d // 2
    positions = np.asarray(positions)
    inv_freq = 1.0 / np.power(base, np.arange(0, d, 2) / d)       # i = 0, 2, 4, ...: exponent -i/d
    table = np.arange(int(positions.max()) + 1)[:, None] * inv_freq
    cos, sin = np.cos(table)[positions], np.sin(table)[positions]  # (T, half)
    out = x.copy()
    x1, x2 = x[..., :half], x[..., half:]
    out[..., :half] *= cos
    out[..., :half] -= x2 * sin
    out[..., half:] *= cos
    out[..., half:] += x1 * sin
    return out
