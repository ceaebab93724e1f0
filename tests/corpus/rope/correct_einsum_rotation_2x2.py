# attnprep: rope
# expect: pass
# style: halves stacked into (..., T, d/2, 2) pairs, one 2x2 rotation matrix per (position, pair), applied with einsum
import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"odd d = {d}")
    half = d // 2
    theta = np.einsum("t,f->tf", np.asarray(positions, dtype=np.float64),
                      np.exp(-2.0 * np.arange(half) / d * np.log(base)))
    c, s = np.cos(theta), np.sin(theta)
    R = np.stack([np.stack([c, -s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)  # (T, half, 2, 2)
    pairs = np.stack([x[..., :half], x[..., half:]], axis=-1)                        # (..., T, half, 2)
    turned = np.einsum("tfij,...tfj->...tfi", R, pairs)
    return np.concatenate([turned[..., 0], turned[..., 1]], axis=-1)
