# attnprep: window
# expect: pass
# style: a hand-written log_softmax (max + log-sum-exp) over -inf-filled scores then exp; mask from broadcasting aranges with keyword arguments; extra default argument
import numpy as np


def log_softmax(s, axis):
    m = s.max(axis=axis, keepdims=True)
    return s - (m + np.log(np.exp(s - m).sum(axis=axis, keepdims=True)))


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError(f"bad window {window}")
    rows = np.arange(T).reshape(-1, 1)
    cols = np.arange(T).reshape(1, -1)
    diff = rows - cols
    return (diff < 0) | (diff >= window)


def window_attention(q, k, v, window, scale=None):
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    blocked = sliding_window_mask(T=q.shape[0], window=window)
    s = np.where(blocked, -np.inf, np.einsum("ik,jk->ij", q, k) * scale)
    w = np.exp(log_softmax(s, axis=-1))
    w[blocked] = 0.0
    return np.einsum("ij,jd->id", w, v), w
