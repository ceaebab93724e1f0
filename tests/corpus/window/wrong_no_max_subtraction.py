# attnprep: window
# expect: fail stable
# must-pass: scale
# mistake: exponentiates the raw scores, which overflows near 1e4
# diagnosis: no-max-subtraction
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    scores = np.where(mask, -np.inf, q @ k.T / np.sqrt(q.shape[-1]))
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
