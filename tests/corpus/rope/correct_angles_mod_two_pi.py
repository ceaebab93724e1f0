# attnprep: rope
# expect: pass
# style: angles reduced modulo 2 pi before cos/sin (as a fixed-point or table lookup port would), frequencies by
#        exp(-log(base) * 2i / d), Python-int positions; float64 throughout
import math

import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"odd d = {d}")
    half = d // 2
    inv_freq = np.exp(-math.log(base) * 2.0 * np.arange(half) / d)
    pos = np.array([int(p) for p in positions], dtype=np.float64)
    angles = np.mod(pos[:, None] * inv_freq, 2.0 * math.pi)
    cos, sin = np.cos(angles), np.sin(angles)
    x1, x2 = x[..., :half], x[..., half:]
    out = np.empty_like(x)
    out[..., :half] = x1 * cos - x2 * sin
    out[..., half:] = x1 * sin + x2 * cos
    return out
