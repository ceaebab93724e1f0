# attnprep: window
# expect: fail sum-to-one prefix
# must-pass: stable equals-causal
# diagnosis: softmax-over-queries
# mistake: normalises the softmax over axis 0 (the queries) instead of the keys
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i, j = np.indices((T, T))
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    scores = np.where(mask, -np.inf, q @ k.T / np.sqrt(q.shape[1]))
    e = np.exp(scores - scores.max(axis=0, keepdims=True))
    weights = e / e.sum(axis=0, keepdims=True)
    return weights @ v, weights
