# attnprep: causal
# expect: fail upper-triangle-zero
# mistake: fills the future with -1e4 (a half-precision habit) instead of -inf; next to scores near -1e4 it leaks
# diagnosis: mask-fill-too-small
# must-pass: stable scale
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    scores = q @ k.T / np.sqrt(q.shape[1])
    scores = np.where(causal_mask(q.shape[0]), -1e4, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
