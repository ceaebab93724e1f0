# attnprep: attention
# expect: fail batch-dims
# diagnosis: index-broadcast-2d
# mistake: broadcasts the row max and sum back with [:, None], which is keepdims only for 2-D scores
# must-pass: stable scale mask input-unchanged
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1)[:, None])
    return w / w.sum(axis=-1)[:, None] @ v
