# attnprep: attention
# expect: fail mask
# mistake: scores[mask] = -inf only works when the mask has the full shape of the scores
# diagnosis: mask-boolean-index
# must-pass: stable scale cross-attention
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores[mask] = -np.inf
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v
