# attnprep: causal
# expect: fail stable
# mistake: no max subtraction before exp, so scores near 1e4 overflow (and near -1e4 give 0/0)
# diagnosis: no-max-subtraction
# must-pass: scale
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k.T / np.sqrt(d_k)
    e = np.exp(np.where(causal_mask(T), -np.inf, scores))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
