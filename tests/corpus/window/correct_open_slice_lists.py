# attnprep: window
# expect: pass
# style: mask from a list comprehension, attention only over the open slice k[lo:i+1] of each row, tuple of lists
import math

import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    return np.array([[not (i - window < j <= i) for j in range(T)] for i in range(T)], dtype=bool).reshape(T, T)


def window_attention(q, k, v, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    T, d_k = q.shape
    weights = np.zeros((T, T))
    for i in range(T):
        lo = max(0, i - window + 1)
        s = k[lo:i + 1] @ q[i] / math.sqrt(d_k)
        e = np.exp(s - s.max())
        weights[i, lo:i + 1] = e / e.sum()
    return (weights @ v).tolist(), weights.tolist()
