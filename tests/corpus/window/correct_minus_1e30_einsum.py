# attnprep: window
# expect: pass
# style: -1e30 fill via np.where, einsum with unusual subscripts, softmax of each row in a Python loop
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be positive")
    gap = np.subtract.outer(np.arange(T), np.arange(T))
    return np.logical_not((gap >= 0) & (gap < window))


def window_attention(q, k, v, window):
    blocked = sliding_window_mask(q.shape[0], window)
    scores = np.einsum("ak,bk->ab", q, k) / q.shape[1] ** 0.5
    scores = np.where(blocked, -1e30, scores)
    weights = np.empty_like(scores)
    for r, row in enumerate(scores):
        e = np.exp(row - row.max())
        weights[r] = e / e.sum()
    return np.einsum("ab,bz->az", weights, v), weights
