# attnprep: attention
# expect: fail stable
# diagnosis: stable-only-unmasked
# mistake: subtracts the row maximum only when no mask is given; the masked path exponentiates the raw scores
# must-pass: scale mask batch-dims sum-to-one matches-reference
import numpy as np


def attention(q, k, v, mask=None):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is None:
        e = np.exp(s - s.max(axis=-1, keepdims=True))
    else:
        e = np.where(mask, 0.0, np.exp(s))
    return e / e.sum(axis=-1, keepdims=True) @ v
