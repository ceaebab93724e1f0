# attnprep: causal
# expect: fail sum-to-one matches-reference prefix
# mistake: normalises over axis 0 (the queries) instead of the last axis (the keys)
# diagnosis: softmax-over-queries
# must-pass: stable scale
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k.T / np.sqrt(d_k)
    scores = np.where(causal_mask(T), -np.inf, scores)
    e = np.exp(scores - scores.max(axis=0, keepdims=True))
    weights = e / e.sum(axis=0, keepdims=True)
    return weights @ v, weights
