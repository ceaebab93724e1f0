# attnprep: window
# expect: fail bad-input
# diagnosis: validates-zero-only
# must-pass: mask row-counts shape sum-to-one window-one equals-causal prefix scale stable matches-reference input-unchanged
# mistake: validates with `if window == 0`, so a negative window slips through and silently blocks everything
import numpy as np


def sliding_window_mask(T, window):
    if window == 0:
        raise ValueError("window must be >= 1")
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    s = np.where(mask, -np.inf, q @ k.T / np.sqrt(q.shape[1]))
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
