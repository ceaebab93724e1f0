# attnprep: causal
# expect: fail stable
# diagnosis: shift-by-first-key
# mistake: shifts each row by the first key's score (every query sees key 0) instead of the row's maximum
# must-pass: scale sum-to-one upper-triangle-zero prefix matches-reference
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d = q.shape
    s = q @ k.T / np.sqrt(d)
    s = s - s[:, :1]
    s = np.where(causal_mask(T), -np.inf, s)
    e = np.exp(s)
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
