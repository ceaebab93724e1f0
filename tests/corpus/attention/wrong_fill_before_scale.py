# attnprep: attention
# expect: fail mask
# mistake: fills the blocked raw scores with -1e5 before dividing by sqrt(d_k): at d_k = 128 that is -8,839, above
# open scores near -1e4, so blocked keys take the weight
# must-pass: shape batch-dims scale
import numpy as np


def attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    raw = q @ np.swapaxes(k, -1, -2)
    if mask is not None:
        raw = np.where(mask, -1e5, raw)
    scores = raw / np.sqrt(d_k)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    return (w / w.sum(axis=-1, keepdims=True)) @ v
