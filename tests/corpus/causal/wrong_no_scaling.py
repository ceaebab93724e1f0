# attnprep: causal
# expect: fail scale matches-reference
# mistake: forgets to divide the scores by sqrt(d_k)
# diagnosis: missing-scale
# must-pass: stable
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T = q.shape[0]
    scores = q @ k.T
    scores = np.where(causal_mask(T), -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
