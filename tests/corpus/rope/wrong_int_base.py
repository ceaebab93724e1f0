# attnprep: rope
# expect: fail frequencies
# must-pass: shape layout direction relative positions input-unchanged
# mistake: int(base) truncates a base that is not a whole number (an NTK-scaled one, say)
import numpy as np

def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2: raise ValueError('odd d')
    half = d // 2
    inv = int(base) ** (-2 * np.arange(half) / d)
    a = np.asarray(positions, dtype=np.float64)[:, None] * inv
    c, s = np.cos(a), np.sin(a)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * c - x2 * s, x1 * s + x2 * c], axis=-1)
