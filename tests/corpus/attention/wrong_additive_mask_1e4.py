# attnprep: attention
# expect: fail mask
# mistake: subtracts 1e4 from the blocked scores; a blocked key scoring 1e4 above the others still gets weight
# diagnosis: mask-fill-too-small
# must-pass: stable scale
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores - 1e4 * mask
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v
