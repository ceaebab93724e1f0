# attnprep: rope
# expect: fail matches-reference
# must-pass: shape position-zero norm-preserving layout direction frequencies relative bad-input input-unchanged
# mistake: clips the positions to a 2,048-position cache (np.minimum(positions, 2047)), so every token past it is
#          rotated as if it sat at position 2,047
# diagnosis: rope-positions-clipped
import numpy as np

CACHE = 2048


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    pos = np.minimum(np.asarray(positions), CACHE - 1)
    angles = pos[:, None] * base ** (-2.0 * np.arange(half) / d)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * np.cos(angles) - x2 * np.sin(angles), x1 * np.sin(angles) + x2 * np.cos(angles)],
                          axis=-1)
