# attnprep: attention
# expect: fail stable
# diagnosis: shift-by-mean
# mistake: centres each row of scores on its mean instead of subtracting the maximum
# must-pass: scale mask batch-dims sum-to-one matches-reference
import numpy as np


def attention(q, k, v, mask=None):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    s = s - s.mean(axis=-1, keepdims=True)
    if mask is not None:
        s = np.where(mask, -np.inf, s)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True) @ v
