# attnprep: rope
# expect: fail input-unchanged
# must-pass: shape position-zero norm-preserving layout direction frequencies positions relative bad-input matches-reference
# mistake: the (B, H, T, d) path of a model rotates q and k in place to save memory (x[...] = ...), which rewrites the
#          caller's array; 2-D and 3-D inputs get a new one
# diagnosis: rope-in-place
import numpy as np


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    angles = np.asarray(positions)[:, None] * base ** (-2.0 * np.arange(half) / d)
    cos, sin = np.cos(angles), np.sin(angles)
    x1, x2 = x[..., :half].copy(), x[..., half:].copy()
    out = x if x.ndim == 4 else np.empty_like(x, dtype=np.float64)
    out[..., :half] = x1 * cos - x2 * sin
    out[..., half:] = x1 * sin + x2 * cos
    return out
