# attnprep: window
# expect: fail blocked-zero
# must-pass: mask shape row-counts sum-to-one window-one equals-causal prefix
# mistake: blocks with a finite score 60 below the row's lowest open one and zeroes the returned weights only afterwards, so out is made from weights that still give blocked keys about exp(-60)
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    idx = np.arange(T)
    return (idx[None, :] > idx[:, None]) | (idx[:, None] - idx[None, :] >= window)


def window_attention(q, k, v, window):
    blocked = sliding_window_mask(q.shape[0], window)
    s = q @ k.T / np.sqrt(q.shape[1])
    floor = np.where(blocked, np.inf, s).min(axis=1, keepdims=True) - 60.0
    s = np.where(blocked, floor, s)
    w = np.exp(s - s.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    out = w @ v
    w = np.where(blocked, 0.0, w)
    w /= w.sum(axis=1, keepdims=True)
    return out, w
