# attnprep: attention
# expect: fail scale cross-attention
# diagnosis: scale-by-key-count
# mistake: reads d_k as k.shape[-2], the number of keys, so the scores are divided by sqrt(T_k)
# must-pass: stable batch-dims mask
import numpy as np


def attention(q, k, v, mask=None):
    d_k = k.shape[-2]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v
