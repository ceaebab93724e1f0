# attnprep: causal
# expect: fail shape matches-reference
# mistake: q @ k without the transpose; it only runs when T == d_k, and then gives the wrong scores
# diagnosis: missing-transpose
# must-pass: stable
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k / np.sqrt(d_k)
    scores = np.where(causal_mask(T), -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
