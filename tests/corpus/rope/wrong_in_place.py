# attnprep: rope
# expect: fail input-unchanged
# mistake: writes the rotated halves back into the caller's x
# diagnosis: rope-in-place
import numpy as np


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    theta = positions[:, None] * base ** (-2.0 * np.arange(half) / d)
    cos, sin = np.cos(theta), np.sin(theta)
    x1, x2 = x[..., :half].copy(), x[..., half:].copy()
    x[..., :half] = x1 * cos - x2 * sin
    x[..., half:] = x1 * sin + x2 * cos
    return x
