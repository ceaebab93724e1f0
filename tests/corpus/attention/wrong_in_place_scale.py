# attnprep: attention
# expect: fail input-unchanged
# diagnosis: scale-folded-in-place
# mistake: folds the scale into q in place, shrinking the caller's queries on every call
# must-pass: stable scale
import numpy as np


def attention(q, k, v, mask=None):
    q /= np.sqrt(q.shape[-1])
    scores = q @ np.swapaxes(k, -1, -2)
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v
