# attnprep: attention
# expect: pass
# style: written for keyword calls (mask=...), scale applied to k instead of q, torch-style masked_fill on a copy with float('-inf')
import math

import numpy as np


def attention(q, k, v, mask=None, scale=None):
    q = np.array(q, dtype=np.float64, copy=True)
    k = np.array(k, dtype=np.float64, copy=True)
    k *= 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = q @ k.swapaxes(-1, -2)
    if mask is not None:
        m = np.broadcast_to(np.asarray(mask), scores.shape)
        scores = scores.copy()
        scores[m] = float("-inf")
    scores -= scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return np.matmul(w, v)
