# attnprep: window
# expect: pass
# style: mask as the difference of two np.tri bands, operator.index validation, window clamped to T, -inf via boolean assignment on the scores
import operator

import numpy as np


def sliding_window_mask(T, window):
    window = operator.index(window)
    if window < 1:
        raise ValueError("window must be >= 1")
    window = min(window, T)
    open_ = np.tri(T, dtype=bool) & ~np.tri(T, k=-window, dtype=bool)
    return ~open_


def window_attention(q, k, v, window):
    mask = sliding_window_mask(len(q), window)
    s = np.matmul(q, np.transpose(k)) * (1.0 / np.sqrt(np.shape(k)[1]))
    s[mask] = -np.inf
    s -= s.max(axis=1)[:, None]
    np.exp(s, out=s)
    s /= s.sum(axis=1)[:, None]
    return s @ v, s
