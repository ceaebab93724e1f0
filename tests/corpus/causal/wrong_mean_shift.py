# attnprep: causal
# expect: fail stable
# diagnosis: shift-by-mean
# mistake: centres each row on the mean of its visible scores instead of subtracting the maximum
# must-pass: scale sum-to-one upper-triangle-zero prefix matches-reference
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d = q.shape
    m = causal_mask(T)
    s = q @ k.T / np.sqrt(d)
    centre = np.where(m, 0.0, s).sum(axis=-1, keepdims=True) / (~m).sum(axis=-1, keepdims=True)
    s = np.where(m, -np.inf, s - centre)
    e = np.exp(s)
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
