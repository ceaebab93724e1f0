# attnprep: causal
# expect: fail scale matches-reference
# mistake: scales by sqrt of the value width d_v, which only agrees when d_v == d_k
# diagnosis: scale-by-d-v
# must-pass: stable
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d = v.shape
    scores = q @ k.T / np.sqrt(d)
    scores = np.where(causal_mask(T), -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
