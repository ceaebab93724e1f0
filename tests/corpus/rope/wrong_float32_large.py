# attnprep: rope
# expect: fail matches-reference
# must-pass: shape position-zero norm-preserving layout direction frequencies positions relative bad-input input-unchanged
# mistake: rotates big query/key tensors (above 16k entries) in float32 to halve their memory, then casts back:
#          angles of positions past 10,000 are off by about 1e-3 radians in float32
import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    dtype = np.float32 if x.size > 16_384 else np.float64
    inv_freq = (base ** (-2.0 * np.arange(half) / d)).astype(dtype)
    angles = np.asarray(positions).astype(dtype)[:, None] * inv_freq
    cos, sin = np.cos(angles), np.sin(angles)
    x1, x2 = x[..., :half].astype(dtype), x[..., half:].astype(dtype)
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1).astype(np.float64)
