# attnprep: window
# expect: fail stable
# must-pass: scale blocked-zero
# diagnosis: global-max
# mistake: subtracts one maximum over all the scores instead of each row's own maximum
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    scores = q @ k.T / np.sqrt(q.shape[1])
    scores = np.where(mask, -np.inf, scores)
    e = np.exp(scores - scores.max())
    weights = e / e.sum(axis=1, keepdims=True)
    return weights @ v, weights
