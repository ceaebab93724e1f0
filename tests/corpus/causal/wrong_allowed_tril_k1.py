# attnprep: causal
# expect: fail mask upper-triangle-zero prefix
# diagnosis: allowed-includes-next
# mistake: builds the allowed set with np.tril(k=1) instead of np.tril(k=0), so each query also sees the next key
# must-pass: stable scale
import numpy as np


def causal_mask(T):
    return ~np.tril(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    scores = q @ k.T / np.sqrt(q.shape[1])
    scores = np.where(causal_mask(q.shape[0]), -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
