# attnprep: attention
# expect: fail stable
# mistake: subtracts one maximum of all the scores instead of each row's, so a row far below it underflows to 0/0
# diagnosis: global-max
# not-diagnosis: mask-after-exp
# must-pass: scale
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores - np.max(scores))
    return w / w.sum(axis=-1, keepdims=True) @ v
