# attnprep: attention
# expect: fail scale
# mistake: scales by sqrt of the value width d_v instead of the key width d_k
# diagnosis: scale-by-d-v
# must-pass: stable batch-dims cross-attention mask
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(v.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v
