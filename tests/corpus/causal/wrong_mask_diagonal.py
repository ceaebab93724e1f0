# attnprep: causal
# expect: fail mask sum-to-one
# mistake: np.triu without k=1 blocks the diagonal too, so row 0 has nothing to attend to
# diagnosis: mask-includes-diagonal
# must-pass: stable scale upper-triangle-zero
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool))


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k.T / np.sqrt(d_k)
    scores = np.where(causal_mask(T), -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
