# attnprep: rope
# expect: fail shape
# must-pass: position-zero layout direction frequencies norm-preserving relative positions
# mistake: assumes a (T, n_heads, d) layout and shapes the angles (T, 1, d/2), which misaligns with x of shape (..., T, d)
# diagnosis: rope-2d-only
import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError("odd d")
    half = d // 2
    inv_freq = base ** (-2.0 * np.arange(half) / d)
    ang = np.asarray(positions, dtype=np.float64)[:, None] * inv_freq
    if x.ndim > 2:
        ang = ang[:, None, :]
    cos, sin = np.cos(ang), np.sin(ang)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
