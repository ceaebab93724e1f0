# attnprep: causal
# expect: fail stable
# diagnosis: shift-by-diagonal
# mistake: shifts each row by its diagonal score (always visible) instead of the row's maximum
# must-pass: scale sum-to-one upper-triangle-zero prefix matches-reference
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d = q.shape
    s = q @ k.T / np.sqrt(d)
    s = s - np.diag(s)[:, None]  # the diagonal is never masked: a safe reference point
    s = np.where(causal_mask(T), -np.inf, s)
    e = np.exp(s)
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
