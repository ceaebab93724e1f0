# attnprep: attention
# expect: fail stable
# mistake: exponentiates the raw scores, which overflows near 1e4
# diagnosis: no-max-subtraction
# must-pass: scale
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v
