# attnprep: attention
# expect: fail matches-reference
# mistake: computes long sequences in float32 to save memory, then casts back
# must-pass: stable scale batch-dims mask
import numpy as np


def attention(q, k, v, mask=None):
    big = q.shape[-2] * k.shape[-2] > 500_000
    if big:
        q, k, v = (a.astype(np.float32) for a in (q, k, v))
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(mask, -np.inf, s)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True) @ v).astype(np.float64)
