# attnprep: rope
# expect: fail layout matches-reference
# mistake: pairs neighbouring features (2i, 2i+1) as in the RoFormer paper instead of i with i + d/2
# diagnosis: rope-interleaved
import numpy as np


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    theta = positions[:, None] * base ** (-np.arange(0, d, 2) / d)
    cos, sin = np.cos(theta), np.sin(theta)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out
