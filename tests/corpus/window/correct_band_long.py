# attnprep: window
# expect: pass
# style: dense for short sequences; above 512 positions only the keys of each window are gathered (a band of `window` columns from a padded k), softmaxed, and scattered back
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    T, d_k = q.shape
    m = sliding_window_mask(T, window)
    if T <= 512:
        s = np.where(m, -np.inf, q @ k.T / np.sqrt(d_k))
        e = np.exp(s - s.max(axis=1, keepdims=True))
        w = e / e.sum(axis=1, keepdims=True)
        return w @ v, w
    w_ = min(window, T)
    cols = np.arange(T)[:, None] - (w_ - 1) + np.arange(w_)[None, :]  # key j of each slot, oldest first
    ok = cols >= 0
    cols = np.clip(cols, 0, T - 1)
    s = np.einsum("td,twd->tw", q, k[cols]) / np.sqrt(d_k)
    s = np.where(ok, s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    band = e / e.sum(axis=1, keepdims=True)
    weights = np.zeros((T, T))
    rows = np.repeat(np.arange(T)[:, None], w_, axis=1)
    weights[rows[ok], cols[ok]] = band[ok]
    return weights @ v, weights
