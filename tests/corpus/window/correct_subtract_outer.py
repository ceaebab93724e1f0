# attnprep: window
# expect: pass
# style: distances from np.subtract.outer, -inf via np.where, private copy of q scaled in place
import numpy as np


def sliding_window_mask(T, window):
    if not window >= 1:
        raise ValueError("the window must hold at least the position itself")
    dist = np.subtract.outer(np.arange(T), np.arange(T))  # i - j
    return (dist < 0) | (dist >= window)


def window_attention(q, k, v, window):
    blocked = sliding_window_mask(len(q), window)
    qs = np.array(q, dtype=np.float64)
    qs *= 1.0 / np.sqrt(qs.shape[1])
    scores = np.where(blocked, -np.inf, qs @ np.transpose(k))
    shifted = scores - np.max(scores, axis=-1, keepdims=True)
    log_w = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    weights = np.exp(log_w)
    return weights @ v, weights
