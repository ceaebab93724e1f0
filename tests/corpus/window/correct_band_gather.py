# attnprep: window
# expect: pass
# style: gathers each row's window of keys with fancy indexing into a (T, window) band (clipped indices, padded slots masked), softmax on the band, scattered back with np.put_along_axis
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window < 1")
    m = np.ones((T, T), dtype=bool)
    for i in range(T):
        m[i, max(0, i - window + 1): i + 1] = False
    return m


def window_attention(q, k, v, window):
    if window < 1:
        raise ValueError("window < 1")
    T = q.shape[0]
    W = min(int(window), T)
    idx = np.arange(T)[:, None] - np.arange(W)[None, ::-1]  # (T, W): i - W + 1 .. i
    valid = idx >= 0
    idx = np.clip(idx, 0, None)
    band = np.einsum("td,twd->tw", q, k[idx]) / np.sqrt(q.shape[1])
    band = np.where(valid, band, -np.inf)
    band = np.exp(band - band.max(axis=1, keepdims=True))
    band /= band.sum(axis=1, keepdims=True)
    out = np.einsum("tw,twd->td", band, v[idx])
    weights = np.zeros((T, T))
    np.put_along_axis(weights, np.where(valid, idx, 0), 0.0, axis=1)
    for i in range(T):
        weights[i, idx[i][valid[i]]] = band[i][valid[i]]
    return out, weights
