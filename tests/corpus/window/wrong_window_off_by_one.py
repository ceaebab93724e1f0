# attnprep: window
# expect: fail mask row-counts blocked-zero window-one
# must-pass: stable scale
# mistake: blocks only i - j > window, so every row sees one key too many
# diagnosis: window-off-by-one
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return (j > i) | (i - j > window)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    scores = q @ k.T / np.sqrt(q.shape[-1])
    scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
