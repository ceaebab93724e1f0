# attnprep: window
# expect: pass
# style: O(T * window) banded scores with sliding_window_view on a padded k, scattered into (T, T); returns a list
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be at least 1")
    d = np.arange(T)[:, None] - np.arange(T)[None, :]   # i - j
    return (d < 0) | (d >= window)


def window_attention(q, k, v, window):
    if window < 1:
        raise ValueError("window must be at least 1")
    T, d_k = q.shape
    w = min(int(window), T)
    k_pad = np.concatenate([np.zeros((w - 1, d_k)), k], axis=0)        # (T + w - 1, d_k)
    k_win = sliding_window_view(k_pad, w, axis=0)                      # (T, d_k, w): keys i-w+1 .. i
    band = np.einsum("td,tdw->tw", q, k_win) / np.sqrt(d_k)
    j = np.arange(T)[:, None] - (w - 1) + np.arange(w)[None, :]        # the key index of each band slot
    band = np.where(j >= 0, band, -np.inf)
    band = np.exp(band - band.max(axis=1, keepdims=True))
    band /= band.sum(axis=1, keepdims=True)
    weights = np.zeros((T, T))
    rows = np.broadcast_to(np.arange(T)[:, None], j.shape)
    ok = j >= 0
    weights[rows[ok], j[ok]] = band[ok]
    return [weights @ v, weights]
