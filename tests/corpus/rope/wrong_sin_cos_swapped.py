# attnprep: rope
# expect: fail direction position-zero matches-reference
# must-pass: frequencies
# mistake: sin and cos are swapped in the rotation
# diagnosis: rope-sin-cos-swapped
import numpy as np


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    theta = positions[:, None] * base ** (-2.0 * np.arange(half) / d)
    cos, sin = np.cos(theta), np.sin(theta)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * sin - x2 * cos, x1 * cos + x2 * sin], axis=-1)
