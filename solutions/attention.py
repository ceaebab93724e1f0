# attnprep: attention
"""Reference solution: batched scaled dot-product attention with an optional mask."""

import numpy as np


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    d_k = q.shape[-1]
    # Swap only the last two axes: k.T would reverse the batch axes as well.
    # `@` treats every axis before the last two as a batch axis.
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)  # (..., T_q, T_k)
    if mask is not None:
        # True = blocked. np.where broadcasts a (T_q, T_k) or (B, 1, 1, T_k) mask
        # against the scores; exp(-inf) is exactly 0 after the softmax.
        scores = np.where(np.asarray(mask, dtype=bool), -np.inf, scores)
    # A softmax over the keys (the last axis), stabilised by each row's maximum.
    # No row is fully blocked, so every maximum is finite.
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v  # (..., T_q, d_v)
