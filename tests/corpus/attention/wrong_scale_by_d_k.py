# attnprep: attention
# expect: fail scale matches-reference
# mistake: divides the scores by d_k instead of sqrt(d_k)
# diagnosis: scale-by-d-k
# must-pass: stable batch-dims cross-attention mask
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / q.shape[-1]
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v
