# attnprep: causal
# expect: fail stable
# mistake: subtracts one global maximum instead of each row's, so a row far below it underflows to 0/0
# diagnosis: global-max
# must-pass: scale
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k.T / np.sqrt(d_k)
    scores = np.where(causal_mask(T), -np.inf, scores)
    e = np.exp(scores - scores.max())
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
