# attnprep: causal
# expect: fail mask upper-triangle-zero prefix
# mistake: blocks the past (below the diagonal) instead of the future
# diagnosis: mask-blocks-past
# must-pass: stable scale
import numpy as np


def causal_mask(T):
    return np.tril(np.ones((T, T), dtype=bool), k=-1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k.T / np.sqrt(d_k)
    scores[causal_mask(T)] = -np.inf
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
