# attnprep: attention
# expect: fail sum-to-one matches-reference
# mistake: normalises the weights over the queries (axis -2) instead of over the keys
# diagnosis: softmax-over-queries
# must-pass: stable scale batch-dims cross-attention mask
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-2, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-2, keepdims=True)
    return w @ v
