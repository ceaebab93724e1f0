# attnprep: rope
# expect: fail frequencies
# mistake: integer floor division in the exponent, base ** (-2 * i // d), so every pair but the first gets 1/base
# diagnosis: rope-floor-division-exponent
import numpy as np


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    i = np.arange(half)
    ang = positions[:, None] * base ** (-2 * i // d)
    cos, sin = np.cos(ang), np.sin(ang)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
