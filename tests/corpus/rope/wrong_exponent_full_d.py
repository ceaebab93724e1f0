# attnprep: rope
# expect: fail frequencies norm-preserving relative matches-reference
# must-pass: direction
# mistake: one frequency per feature, base^(-2i/d) for i over all d, instead of d/2 frequencies shared by each pair
# diagnosis: rope-frequency-per-feature
import numpy as np


def rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    inv_freq = base ** (-2.0 * np.arange(d) / d)
    theta = positions[:, None] * inv_freq  # (T, d): should be the d/2 angles repeated twice
    return x * np.cos(theta) + rotate_half(x) * np.sin(theta)
