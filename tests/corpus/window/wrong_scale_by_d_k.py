# attnprep: window
# expect: fail scale
# must-pass: stable equals-causal
# diagnosis: scale-by-d-k
# mistake: divides the scores by d_k instead of sqrt(d_k)
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i, j = np.indices((T, T))
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    scores = np.where(mask, -np.inf, q @ k.T / q.shape[1])
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    return weights @ v, weights
