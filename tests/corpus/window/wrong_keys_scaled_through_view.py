# attnprep: window
# expect: fail input-unchanged
# mistake: kt = k.T is a view, so `kt /= np.sqrt(d_k)` divides the caller's k in place; any call leaves k scaled by 1/sqrt(d_k)
# diagnosis: scale-folded-in-place
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i, j = np.indices((T, T))
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    T, d_k = q.shape
    kt = k.T
    kt /= np.sqrt(d_k)            # fold the scale into the keys
    scores = q @ kt
    scores = np.where(sliding_window_mask(T, window), -np.inf, scores)
    scores -= scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return w @ v, w
