# attnprep: causal
# expect: pass
# style: mask from np.less.outer on aranges, a softmax helper applied to -inf-filled scores (boolean assignment), np.dot, returns a list [out, weights]
import numpy as np


def softmax(s, axis):
    e = np.exp(s - np.max(s, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(T):
    pos = np.arange(T)
    return np.less.outer(pos, pos)


def causal_attention(q, k, v, mask=None, scale=None):
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    T = q.shape[0]
    scale = 1.0 / np.sqrt(k.shape[-1]) if scale is None else scale
    s = np.dot(q, k.T) * scale
    s[causal_mask(T) if mask is None else mask] = -np.inf
    w = softmax(s, axis=1)
    return [np.dot(w, v), w]
