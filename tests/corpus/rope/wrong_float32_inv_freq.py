# attnprep: rope
# expect: fail matches-reference
# must-pass: relative
# mistake: builds the frequencies with a float32 arange (as in some PyTorch code), so angles at large positions drift
import numpy as np


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    inv_freq = 1.0 / (np.float32(base) ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d)))
    ang = positions[:, None].astype(np.float32) * inv_freq
    cos, sin = np.cos(ang), np.sin(ang)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
