# attnprep: rope
# expect: fail frequencies matches-reference
# mistake: hard-codes 10000 and ignores the base argument
# diagnosis: rope-base-ignored
import numpy as np


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    theta = positions[:, None] * 10000.0 ** (-2.0 * np.arange(half) / d)
    cos, sin = np.cos(theta), np.sin(theta)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
