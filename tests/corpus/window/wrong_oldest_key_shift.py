# attnprep: window
# expect: fail stable
# diagnosis: shift-by-oldest-key
# mistake: shifts each row by the score of the oldest key still in its window instead of the row's maximum
# must-pass: scale sum-to-one blocked-zero prefix matches-reference
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i, j = np.indices((T, T))
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    T = q.shape[0]
    m = sliding_window_mask(T, window)
    s = q @ k.T / np.sqrt(q.shape[1])
    first = np.maximum(np.arange(T) - window + 1, 0)
    s = np.where(m, -np.inf, s - s[np.arange(T), first][:, None])
    e = np.exp(s)
    w = e / e.sum(axis=1, keepdims=True)
    return w @ v, w
