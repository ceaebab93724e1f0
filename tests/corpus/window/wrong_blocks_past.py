# attnprep: window
# expect: fail mask prefix blocked-zero equals-causal row-counts
# must-pass: stable scale
# mistake: flips the mask: blocks the past and lets each query see the next window of future keys
# diagnosis: mask-blocks-past
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return (j < i) | (j - i >= window)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    scores = q @ k.T / np.sqrt(q.shape[-1])
    scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
