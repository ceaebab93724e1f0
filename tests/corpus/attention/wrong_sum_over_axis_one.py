# attnprep: attention
# expect: fail batch-dims cross-attention sum-to-one matches-reference
# must-pass: scale mask stable
# mistake: the maximum is taken over the keys (axis=-1), the sum over axis 1, the key axis only for 2-D input
# diagnosis: softmax-wrong-axis
import numpy as np


def attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=1, keepdims=True)
    return weights @ v
