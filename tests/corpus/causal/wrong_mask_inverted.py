# attnprep: causal
# expect: fail mask
# mistake: causal_mask marks the allowed positions True, the opposite of the contract's convention
# diagnosis: mask-inverted
# must-pass: stable scale
import numpy as np


def causal_mask(T):
    return np.tril(np.ones((T, T), dtype=bool))


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k.T / np.sqrt(d_k)
    scores = np.where(causal_mask(T), scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
