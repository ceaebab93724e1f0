# attnprep: causal
# expect: fail scale
# mistake: d_k ** 1/2 parses as d_k/2, not sqrt(d_k); only right when d_k == 4 (wrong scale for d_k = 8, 16, 3, ...)
# diagnosis: scale-precedence
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), 1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = (q @ k.T) / (d_k ** 1/2)
    scores = np.where(causal_mask(T), -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
