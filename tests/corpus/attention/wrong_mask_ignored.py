# attnprep: attention
# expect: fail mask
# mistake: accepts a mask but never applies it
# diagnosis: mask-ignored
# must-pass: stable scale cross-attention
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v
