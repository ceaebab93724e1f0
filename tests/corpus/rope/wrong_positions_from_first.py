# attnprep: rope
# expect: fail frequencies positions relative matches-reference
# must-pass: norm-preserving position-zero direction layout
# mistake: takes positions[0] as a cache offset and rotates row t by positions[0] + t
# diagnosis: rope-positions-from-first
import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    T = x.shape[-2]
    half = d // 2
    start = int(np.asarray(positions).reshape(-1)[0])    # KV-cache offset
    pos = start + np.arange(T, dtype=np.float64)
    theta = np.outer(pos, base ** (-2.0 * np.arange(half) / d))
    c, s = np.cos(theta), np.sin(theta)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * c - x2 * s, x1 * s + x2 * c], axis=-1)
