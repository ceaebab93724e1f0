# attnprep: window
# expect: fail input-unchanged
# diagnosis: scale-folded-in-place
# must-pass: stable scale
# mistake: divides q by sqrt(d_k) in place, changing the caller's array
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    q /= np.sqrt(q.shape[-1])
    scores = np.where(mask, -np.inf, q @ k.T)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
