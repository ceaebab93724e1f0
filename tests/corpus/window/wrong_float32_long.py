# attnprep: window
# expect: fail matches-reference
# mistake: computes in float32 once the sequence is long, to save memory
# must-pass: stable scale prefix sum-to-one
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i, j = np.indices((T, T))
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    T = q.shape[0]
    m = sliding_window_mask(T, window)
    if T > 512:
        q, k, v = (a.astype(np.float32) for a in (q, k, v))
    s = np.where(m, -np.inf, q @ k.T / np.sqrt(q.shape[1]))
    e = np.exp(s - s.max(axis=1, keepdims=True))
    w = e / e.sum(axis=1, keepdims=True)
    return (w @ v).astype(np.float64), w.astype(np.float64)
