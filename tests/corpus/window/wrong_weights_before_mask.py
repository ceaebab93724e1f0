# attnprep: window
# expect: fail blocked-zero equals-causal prefix row-counts window-one
# must-pass: stable scale
# mistake: computes out correctly but returns the weights from before the mask
# diagnosis: weights-before-mask
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
    raw = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = raw / raw.sum(axis=-1, keepdims=True)
    masked = np.where(mask, -np.inf, scores)
    masked = np.exp(masked - masked.max(axis=-1, keepdims=True))
    masked = masked / masked.sum(axis=-1, keepdims=True)
    return masked @ v, weights
