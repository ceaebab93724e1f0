# attnprep: attention
# expect: fail mask
# mistake: reads True in the mask as "may attend" instead of "blocked"
# diagnosis: mask-inverted
# must-pass: stable scale cross-attention
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v
