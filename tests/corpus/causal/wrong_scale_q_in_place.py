# attnprep: causal
# expect: fail input-unchanged
# diagnosis: scale-folded-in-place
# mistake: scales q in place with /=, changing the caller's array
# must-pass: stable scale
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    q /= np.sqrt(d_k)
    scores = q @ k.T
    scores = np.where(causal_mask(T), -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
