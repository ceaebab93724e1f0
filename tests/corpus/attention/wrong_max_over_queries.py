# attnprep: attention
# expect: fail stable
# diagnosis: max-over-queries
# mistake: subtracts each key column's maximum (axis=-2) instead of each query row's, so a query row far below the others underflows to 0/0
# must-pass: scale shape batch-dims input-unchanged
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-2, keepdims=True)
    w = np.exp(scores)
    return w / w.sum(axis=-1, keepdims=True) @ v
