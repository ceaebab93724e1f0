# attnprep: attention
# expect: pass
# style: np.einsum with an ellipsis for the batch dims, -1e9 added where the mask blocks
import numpy as np


def attention(q, k, v, mask=None):
    scores = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores + np.where(mask, -1e9, 0.0)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= np.sum(w, axis=-1, keepdims=True)
    return np.einsum("...qk,...kd->...qd", w, v)
