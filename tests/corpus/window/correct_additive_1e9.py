# attnprep: window
# expect: pass
# style: np.tril / np.triu band mask, -1e9 added to blocked scores, einsum
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError(f"window must be positive, got {window}")
    ones = np.ones((T, T), dtype=bool)
    allowed = np.tril(ones) & np.triu(ones, -(window - 1))
    return ~allowed


def window_attention(q, k, v, window):
    T, d_k = q.shape
    scores = np.einsum("id,jd->ij", q, k) / np.sqrt(d_k)
    scores = scores + np.where(sliding_window_mask(T, window), -1e9, 0.0)
    scores -= scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=1, keepdims=True)
    return np.einsum("ij,jd->id", weights, v), weights
