# attnprep: rope
# expect: fail positions relative matches-reference
# must-pass: direction frequencies position-zero
# mistake: ignores the positions argument and rotates row t by position t (np.arange(T))
# diagnosis: rope-positions-ignored
import numpy as np


def rope(x, positions, base=10000.0):
    T, d = x.shape[-2], x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    pos = np.arange(T)
    theta = pos[:, None] * base ** (-2.0 * np.arange(half) / d)
    cos, sin = np.cos(theta), np.sin(theta)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
