# attnprep: rope
# expect: fail frequencies matches-reference
# mistake: frequencies base^(-i/d): the factor 2 in the exponent is missing
# diagnosis: rope-exponent-missing-two
import numpy as np


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    inv_freq = 1.0 / base ** (np.arange(half) / d)
    theta = np.outer(positions, inv_freq)
    cos, sin = np.cos(theta), np.sin(theta)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
