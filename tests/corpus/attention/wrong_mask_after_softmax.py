# attnprep: attention
# expect: fail mask
# mistake: zeroes the blocked weights after the softmax without renormalising
# diagnosis: mask-after-softmax
# must-pass: stable scale cross-attention
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    if mask is not None:
        w = np.where(mask, 0.0, w)
    return w @ v
