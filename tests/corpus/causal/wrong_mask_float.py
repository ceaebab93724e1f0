# attnprep: causal
# expect: fail mask
# mistake: causal_mask returns a float 0/1 matrix instead of dtype bool
# must-pass: stable scale
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T)), k=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k.T / np.sqrt(d_k)
    scores = scores - 1e9 * causal_mask(T)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
