# attnprep: rope
# expect: pass
# style: rotate_half via np.roll and a sign vector, the angles duplicated to width d with np.tile, positions reshaped to a column
import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d & 1:
        raise ValueError("rope requires an even number of features")
    half = d // 2
    inv = base ** (-np.arange(half, dtype=np.float64) * 2 / d)
    ang = np.tile(np.reshape(np.asarray(positions, dtype=np.float64), (-1, 1)) * inv, 2)  # (T, d)
    sign = np.concatenate([-np.ones(half), np.ones(half)])
    rotated = np.roll(x, half, axis=-1) * sign      # [-x2, x1]
    return x * np.cos(ang) + rotated * np.sin(ang)
