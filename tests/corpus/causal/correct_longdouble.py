# attnprep: causal
# expect: pass
# style: computes the scores and the softmax in np.longdouble (extended precision) and returns float64
import numpy as np


def causal_mask(T):
    return np.tri(T, T, -1, dtype=bool).T


def causal_attention(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.longdouble) for a in (q, k, v))
    T, d_k = q.shape
    s = np.einsum("id,jd->ij", q, k) / np.sqrt(np.longdouble(d_k))
    s[causal_mask(T)] = -np.inf
    s -= s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w /= w.sum(axis=-1, keepdims=True)
    return (w @ v).astype(np.float64), w.astype(np.float64)
