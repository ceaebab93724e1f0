# attnprep: rope
# expect: fail frequencies
# must-pass: direction
# diagnosis: rope-pairs-from-one
# mistake: counts the pairs from 1 (i in 1..d/2), so the first pair does not turn at 1 rad per position
import numpy as np


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    i = np.arange(1, half + 1)
    ang = positions[:, None] * base ** (-2.0 * i / d)
    cos, sin = np.cos(ang), np.sin(ang)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
