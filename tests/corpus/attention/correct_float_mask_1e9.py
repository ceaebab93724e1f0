# attnprep: attention
# expect: pass
# style: the bool mask cast to 0/1 floats and scaled by -1e9, np.matmul and k.swapaxes, tuple-unpacked shapes
import numpy as np


def attention(q, k, v, mask=None):
    *_, t_q, d_k = q.shape
    scores = np.matmul(q, k.swapaxes(-2, -1)) / d_k ** 0.5
    if mask is not None:
        scores = scores - 1e9 * np.asarray(mask, dtype=np.float64)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights = weights / weights.sum(-1, keepdims=True)
    return np.matmul(weights, v)
