# attnprep: causal
# expect: fail sum-to-one matches-reference prefix
# mistake: zeroes the future after the softmax without renormalising the rows
# diagnosis: mask-after-softmax
# must-pass: stable scale
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k.T / np.sqrt(d_k)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    weights = np.where(causal_mask(T), 0.0, weights)
    return weights @ v, weights
