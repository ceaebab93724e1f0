# attnprep: window
# expect: fail mask row-counts
# diagnosis: window-sign-flipped
# must-pass: shape sum-to-one equals-causal prefix scale bad-input input-unchanged
# mistake: writes the window condition as j - i >= window instead of i - j >= window, so it only re-blocks the future and the past is never cut off
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return (j > i) | (j - i >= window)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    s = np.where(mask, -np.inf, q @ k.T / np.sqrt(q.shape[1]))
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
