# attnprep: attention
# expect: pass
# style: a 2-D fast path with np.dot and k.T, batched path via np.apply_along_axis softmax; keyword-only extras
import numpy as np


def _softmax(row):
    row = row - row.max()
    e = np.exp(row)
    return e / e.sum()


def attention(q, k, v, mask=None, *, return_weights=False):
    d_k = q.shape[-1]
    if q.ndim == 2 and (mask is None or np.ndim(mask) <= 2):
        scores = np.dot(q, k.T) / np.sqrt(d_k)
    else:
        scores = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(np.broadcast_to(mask, scores.shape), -np.inf, scores)
    weights = np.apply_along_axis(_softmax, -1, scores)
    out = weights @ v
    return (out, weights) if return_weights else out
