# attnprep: attention
# expect: fail mask
# must-pass: shape batch-dims cross-attention scale
# mistake: fills blocked scores with the row's lowest score minus 50 instead of -inf: a blocked key keeps a weight of about exp(-50), invisible in ordinary values but not when its value row is large
import numpy as np


def attention(q, k, v, mask=None):
    s = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(q.shape[-1])
    if mask is not None:
        mask = np.broadcast_to(mask, s.shape)
        s = np.where(mask, s.min(axis=-1, keepdims=True) - 50.0, s)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    return np.einsum("...qk,...kd->...qd", w, v)
