# attnprep: causal
# expect: fail prefix matches-reference
# diagnosis: out-transposed-weights
# must-pass: mask shape sum-to-one upper-triangle-zero scale stable input-unchanged
# mistake: computes out = weights.T @ v (same shape), so each position mixes the values of the queries that attend to it
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    s = q @ k.T / np.sqrt(q.shape[1])
    s = np.where(causal_mask(q.shape[0]), -np.inf, s)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w.T @ v, w
