# attnprep: window
# expect: fail mask row-counts equals-causal
# must-pass: stable scale
# diagnosis: mask-allowed-convention
# mistake: returns the PyTorch-style "True = may attend" mask, the opposite of the contract's True = blocked
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i, j = np.indices((T, T))
    return (j <= i) & (i - j < window)


def window_attention(q, k, v, window):
    allowed = sliding_window_mask(q.shape[0], window)
    scores = np.where(allowed, q @ k.T / np.sqrt(q.shape[1]), -np.inf)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    return weights @ v, weights
