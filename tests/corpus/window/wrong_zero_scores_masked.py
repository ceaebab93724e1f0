# attnprep: window
# expect: fail matches-reference
# must-pass: mask shape window-one bad-input
# mistake: multiplies the scores by the allowed band and then masks every zero score, so a real score of exactly 0 (a query or key of zeros) is blocked too
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be at least 1")
    i, j = np.indices((T, T))
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    blocked = sliding_window_mask(q.shape[0], window)
    scores = (q @ k.T / np.sqrt(q.shape[1])) * ~blocked
    scores[scores == 0] = -np.inf
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = weights / weights.sum(axis=1, keepdims=True)
    return weights @ v, weights
