# attnprep: causal
# expect: pass
# style: mask from ~np.tri, an additive float mask of np.finfo(float).min, np.matmul, keyword-only extras
import numpy as np


def causal_mask(T):
    return ~np.tri(T, dtype=bool)


def causal_attention(q, k, v, *, return_weights=True, **unused):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T = q.shape[0]
    bias = np.where(causal_mask(T), np.finfo(np.float64).min, 0.0)
    scores = np.matmul(q, k.T) * (1.0 / np.sqrt(q.shape[-1])) + bias
    scores -= scores.max(axis=1, keepdims=True)  # private array: in place is fine
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=1, keepdims=True)
    return np.matmul(scores, v), scores
