# attnprep: causal
# expect: pass
# style: einsum, allowed set from np.tril, additive -inf mask matrix
import numpy as np


def causal_mask(T):
    return ~np.tril(np.ones((T, T), dtype=bool))


def causal_attention(q, k, v):
    d_k = q.shape[-1]
    T = q.shape[-2]
    allowed = np.tril(np.ones((T, T), dtype=bool))
    bias = np.where(allowed, 0.0, -np.inf)
    scores = np.einsum("id,jd->ij", q, k) / np.sqrt(d_k) + bias
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    p = np.exp(scores)
    weights = p / np.sum(p, axis=-1, keepdims=True)
    out = np.einsum("ij,jd->id", weights, v)
    return out, weights
