# attnprep: attention
# expect: pass
# style: log-softmax via log-sum-exp, masked_fill-style copy, swapaxes and matmul
import numpy as np


def attention(q, k, v, mask=None):
    scores = np.matmul(q, k.swapaxes(-2, -1)) * (1.0 / np.sqrt(k.shape[-1]))
    if mask is not None:
        scores = np.broadcast_to(scores, np.broadcast_shapes(scores.shape, np.shape(mask))).copy()
        scores[np.broadcast_to(mask, scores.shape)] = -np.inf
    m = scores.max(axis=-1, keepdims=True)
    lse = m + np.log(np.exp(scores - m).sum(axis=-1, keepdims=True))
    return np.matmul(np.exp(scores - lse), v)
