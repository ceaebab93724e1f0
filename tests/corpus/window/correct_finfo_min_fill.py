# attnprep: window
# expect: pass
# style: np.finfo(float).min written into the blocked scores (a private array), np.dot, mask built through a keyword call, **kwargs accepted
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window < 1")
    i, j = np.meshgrid(np.arange(T), np.arange(T), indexing="ij")
    return ~((j <= i) & (j > i - window))


def window_attention(q, k, v, window, **kwargs):
    blocked = sliding_window_mask(T=q.shape[0], window=window)
    scores = np.dot(q, k.T) * (1.0 / np.sqrt(q.shape[1]))
    scores[blocked] = np.finfo(float).min            # scores is our own array; exp() of it is 0.0
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.dot(weights, v), weights
