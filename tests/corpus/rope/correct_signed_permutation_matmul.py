# attnprep: rope
# expect: pass
# style: x * cos + (x @ J) * sin with J the signed "rotate half" permutation matrix, inv_freq = 1 / base**(arange(0,d,2)/d)
import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2 != 0:
        raise ValueError(f"odd feature size {d}")
    half = d // 2
    # (x @ J)[..., :half] = -x2, (x @ J)[..., half:] = x1
    J = np.zeros((d, d))
    J[np.arange(half) + half, np.arange(half)] = -1.0
    J[np.arange(half), np.arange(half) + half] = 1.0
    inv_freq = 1.0 / (base ** (np.arange(0, d, 2, dtype=np.float64) / d))
    ang = np.asarray(positions).reshape(-1, 1) * inv_freq
    ang = np.concatenate([ang, ang], axis=-1)          # (T, d)
    return x * np.cos(ang) + np.matmul(x, J) * np.sin(ang)
