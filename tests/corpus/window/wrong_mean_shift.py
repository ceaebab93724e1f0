# attnprep: window
# expect: fail stable
# diagnosis: shift-by-mean
# mistake: centres each row on the mean of the scores in its window instead of subtracting the maximum
# must-pass: scale sum-to-one blocked-zero prefix matches-reference
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i, j = np.indices((T, T))
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    m = sliding_window_mask(q.shape[0], window)
    s = q @ k.T / np.sqrt(q.shape[1])
    s = np.ma.masked_array(s, mask=m)
    s = s - s.mean(axis=1, keepdims=True)
    e = np.exp(s.filled(-np.inf))
    w = e / e.sum(axis=1, keepdims=True)
    return w @ v, w
