# attnprep: rope
# expect: fail positions
# must-pass: shape norm-preserving layout direction frequencies relative
# mistake: a shortcut for the common case: when the positions go up one at a time it builds the angles from np.arange(T), which is right only for a run that starts at 0, not for a chunk later in the sequence
import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError("rope needs an even last dimension")
    positions = np.asarray(positions)
    T = x.shape[-2]
    if T > 1 and np.all(positions[1:] - positions[:-1] == 1):
        positions = np.arange(T)  # the usual prefill case
    inv_freq = 1.0 / base ** (np.arange(0, d, 2) / d)
    theta = positions.astype(np.float64)[:, None] * inv_freq
    cos, sin = np.cos(theta), np.sin(theta)
    first, second = x[..., : d // 2], x[..., d // 2:]
    return np.concatenate([first * cos - second * sin, first * sin + second * cos], axis=-1)
