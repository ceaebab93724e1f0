# attnprep: attention
# expect: fail batch-dims
# diagnosis: d-k-from-axis-one
# mistake: reads d_k as q.shape[1], which is the feature width only for 2-D q; batched, it is T_q (or a batch dim)
# must-pass: stable scale mask sum-to-one input-unchanged
import numpy as np


def attention(q, k, v, mask=None):
    d_k = q.shape[1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    return w / w.sum(axis=-1, keepdims=True) @ v
