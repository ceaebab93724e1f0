# attnprep: attention
# expect: fail stable
# diagnosis: shift-by-first-key
# mistake: shifts each row by the score of the first key instead of the row's maximum
# must-pass: scale mask batch-dims sum-to-one matches-reference
import numpy as np


def attention(q, k, v, mask=None):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    s = s - s[..., :1]
    if mask is not None:
        s = np.where(mask, -np.inf, s)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True) @ v
