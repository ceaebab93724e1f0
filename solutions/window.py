# attnprep: window
"""Reference solution: causal sliding-window attention."""

import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    i = np.arange(T)[:, None]  # query positions, a column
    j = np.arange(T)[None, :]  # key positions, a row
    # Blocked: the future (j > i) and keys `window` or more steps back. The
    # window counts the position itself, so row i keeps min(i + 1, window) keys.
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    mask = sliding_window_mask(q.shape[0], window)  # raises for window < 1
    scores = q @ k.T / np.sqrt(q.shape[-1])
    # Mask before the softmax so the open entries still sum to one. The
    # diagonal is never blocked, so every row has a finite maximum.
    scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
