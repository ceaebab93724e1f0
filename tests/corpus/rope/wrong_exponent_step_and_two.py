# attnprep: rope
# expect: fail frequencies matches-reference
# mistake: i steps 0, 2, 4, ... and the exponent still multiplies by 2, giving base^(-4i/d)
# diagnosis: rope-exponent-doubled
import numpy as np


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    i = np.arange(0, d, 2)
    inv_freq = base ** (-2.0 * i / d)
    theta = positions[:, None] * inv_freq
    cos, sin = np.cos(theta), np.sin(theta)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
