# attnprep: attention
# expect: fail mask
# mistake: fills blocked scores with -1e4 (a half-precision habit); next to scores near -1e4 the blocked keys get weight
# diagnosis: mask-fill-too-small
# must-pass: stable scale
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -1e4, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v
