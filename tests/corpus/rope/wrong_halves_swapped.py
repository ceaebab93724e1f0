# attnprep: rope
# expect: fail position-zero
# must-pass: direction frequencies
# mistake: concatenates the two rotated halves in the wrong order, so the halves of every vector trade places
# diagnosis: rope-halves-swapped
import numpy as np


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    ang = positions[:, None] * base ** (-2.0 * np.arange(half) / d)
    cos, sin = np.cos(ang), np.sin(ang)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * sin + x2 * cos, x1 * cos - x2 * sin], axis=-1)
