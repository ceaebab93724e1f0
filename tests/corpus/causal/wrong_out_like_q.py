# attnprep: causal
# expect: fail shape
# mistake: allocates out with np.zeros_like(q), which only has the right width when d_v == d_k
# diagnosis: out-like-q
# must-pass: stable
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k.T / np.sqrt(d_k)
    scores = np.where(causal_mask(T), -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    out = np.zeros_like(q)
    for i in range(T):
        out[i] = weights[i] @ v
    return out, weights
