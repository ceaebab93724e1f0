# attnprep: rope
# expect: fail position-zero matches-reference
# must-pass: shape norm-preserving layout direction frequencies positions relative bad-input input-unchanged
# mistake: counts positions from 1 (angle = (p + 1) * base^(-2i/d)), so position 0 is already rotated
# diagnosis: rope-positions-from-one
import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError("odd d")
    half = d // 2
    inv_freq = base ** (-2.0 * np.arange(half) / d)
    ang = (np.asarray(positions, dtype=np.float64)[:, None] + 1.0) * inv_freq
    cos, sin = np.cos(ang), np.sin(ang)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
