# attnprep: window
# expect: fail sum-to-one prefix
# must-pass: stable scale equals-causal window-one
# mistake: takes the softmax of all scores, then zeroes the blocked weights without renormalising
# diagnosis: mask-after-softmax
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    scores = q @ k.T / np.sqrt(q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    weights = np.where(mask, 0.0, weights)
    return weights @ v, weights
