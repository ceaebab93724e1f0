# attnprep: window
# expect: fail shape
# diagnosis: mask-from-d-k
# must-pass: stable
# mistake: builds the mask from q.shape[1] (d_k) instead of the sequence length T
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i, j = np.indices((T, T))
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    d_k = q.shape[1]
    mask = sliding_window_mask(d_k, window)
    scores = np.where(mask, -np.inf, q @ k.T / np.sqrt(d_k))
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    return weights @ v, weights
