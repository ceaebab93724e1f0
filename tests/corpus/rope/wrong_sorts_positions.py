# attnprep: rope
# expect: fail input-unchanged positions
# must-pass: position-zero relative
# mistake: sorts the caller's positions in place to build a table, assuming positions come in order
# diagnosis: rope-sorts-positions
import numpy as np


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    positions.sort()
    ang = positions[:, None] * base ** (-2.0 * np.arange(half) / d)
    cos, sin = np.cos(ang), np.sin(ang)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
