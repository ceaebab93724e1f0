# attnprep: attention
# expect: fail scale matches-reference
# mistake: forgets to divide the scores by sqrt(d_k)
# diagnosis: missing-scale
# must-pass: stable batch-dims cross-attention mask
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2)
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v
