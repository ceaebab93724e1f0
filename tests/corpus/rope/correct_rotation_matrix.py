# attnprep: rope
# expect: pass
# style: an explicit (T, d, d) block-rotation matrix per position, applied with einsum
import numpy as np


def rope(x, positions, base=10000.0):
    T, d = x.shape[-2:]
    if d % 2:
        raise ValueError("odd d")
    h = d // 2
    theta = np.asarray(positions)[:, None] / np.power(base, 2 * np.arange(h) / d)
    c, s = np.cos(theta), np.sin(theta)
    R = np.zeros((T, d, d))
    idx = np.arange(h)
    R[:, idx, idx] = c
    R[:, idx + h, idx + h] = c
    R[:, idx, idx + h] = -s  # out[i] = c*x[i] - s*x[i+h]
    R[:, idx + h, idx] = s   # out[i+h] = s*x[i] + c*x[i+h]
    return np.einsum("tij,...tj->...ti", R, x)
