# attnprep: window
# expect: fail blocked-zero
# mistake: fills the blocked raw scores with -1e5 before dividing by sqrt(d_k); at d_k = 128 and scores near -1e4 the
# blocked keys outscore the window
# must-pass: mask row-counts bad-input
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be at least 1")
    i, j = np.indices((T, T))
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    blocked = sliding_window_mask(q.shape[0], window)
    s = np.where(blocked, -1e5, q @ k.T) / np.sqrt(q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
