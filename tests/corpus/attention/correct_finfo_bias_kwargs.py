# attnprep: attention
# expect: pass
# style: an additive float bias of np.finfo(float).min, scale folded into a copy of q, extra keyword arguments
import numpy as np


def attention(q, k, v, mask=None, *, scale=None, dropout=0.0, **unused):
    d_k = np.shape(q)[-1]
    scale = 1.0 / np.sqrt(d_k) if scale is None else scale
    q_scaled = np.multiply(q, scale)  # a new array; the caller's q is untouched
    axes = list(range(np.ndim(k)))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    scores = q_scaled @ np.transpose(k, axes)
    if mask is not None:
        scores = scores + np.where(mask, np.finfo(np.float64).min, 0.0)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    w = np.exp(scores)
    return (w / np.sum(w, axis=-1, keepdims=True)) @ v
