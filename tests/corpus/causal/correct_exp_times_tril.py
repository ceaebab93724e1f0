# attnprep: causal
# expect: pass
# style: the max over the allowed keys only, then exp multiplied by a 0/1 tril matrix and renormalised; -1e30 fill
import numpy as np


def causal_mask(T):
    m = np.zeros((T, T), dtype=bool)
    m[np.triu_indices(T, k=1)] = True
    return m


def causal_attention(q, k, v):
    d_k = q.shape[-1]
    scores = np.einsum("ik,jk->ij", q, k) / d_k ** 0.5
    allowed = np.tril(np.ones_like(scores))
    row_max = np.where(allowed > 0, scores, -1e30).max(axis=-1, keepdims=True)
    e = np.exp(np.minimum(scores - row_max, 0.0)) * allowed
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
