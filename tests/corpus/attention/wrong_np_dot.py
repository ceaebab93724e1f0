# attnprep: attention
# expect: fail shape batch-dims
# mistake: np.dot instead of @; on 3-D and 4-D arrays np.dot is not a batched matrix product
# diagnosis: np-dot-not-batched
# must-pass: stable scale cross-attention sum-to-one permutation-equivariant mask input-unchanged
import numpy as np


def attention(q, k, v, mask=None):
    scores = np.dot(q, np.swapaxes(k, -1, -2)) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return np.dot(w, v)
