# attnprep: rope
# expect: fail shape matches-reference
# mistake: slices x[:, :half], which only means "the first half of the features" when x is 2-D
# diagnosis: rope-2d-only
import numpy as np


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    theta = positions[:, None] * base ** (-2.0 * np.arange(half) / d)
    cos, sin = np.cos(theta), np.sin(theta)
    x1, x2 = x[:, :half], x[:, half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=1)
