# attnprep: attention
# expect: fail mask
# mistake: a fast path for one query (T_q == 1, a decoding step) computes the scores as an elementwise product and
# forgets the mask there
# must-pass: shape scale
import numpy as np


def _softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    if q.shape[-2] == 1:  # decoding: one query against the whole cache
        s = (q * k).sum(axis=-1)[..., None, :] / np.sqrt(d_k)
        return _softmax(s) @ v
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        s = np.where(mask, -np.inf, s)
    return _softmax(s) @ v
