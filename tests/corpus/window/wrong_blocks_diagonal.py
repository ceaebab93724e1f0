# attnprep: window
# expect: fail mask window-one equals-causal row-counts sum-to-one
# must-pass: stable scale blocked-zero
# mistake: uses j >= i for the future, which also blocks each position's own key
# diagnosis: mask-includes-diagonal
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return (j >= i) | (i - j >= window)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    scores = q @ k.T / np.sqrt(q.shape[-1])
    scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
