# attnprep: window
# expect: fail mask row-counts window-one equals-causal sum-to-one
# must-pass: stable scale blocked-zero
# diagnosis: window-off-by-one
# mistake: np.tril with offset -(window - 1) blocks i - j >= window - 1, so every row sees one key too few
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    ones = np.ones((T, T), dtype=bool)
    return np.triu(ones, 1) | np.tril(ones, -(window - 1))


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    scores = np.where(mask, -np.inf, q @ k.T / np.sqrt(q.shape[1]))
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    return weights @ v, weights
