# attnprep: causal
"""Reference solution: causal mask and masked single-head attention."""

import numpy as np


def causal_mask(T):
    # Query i may look at keys 0..i. Everything strictly above the diagonal
    # (k=1) is the future and is blocked; the diagonal stays open, so every
    # row keeps at least one position to attend to.
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T, d_k = q.shape
    # Scale by sqrt(d_k), the width of the dot products, so the scores keep a
    # variance near one whatever the head size (not d_k, not d_v).
    scores = q @ k.T / np.sqrt(d_k)
    # Mask BEFORE the softmax: -inf becomes exactly 0 after exp, and the
    # allowed entries of each row are renormalised among themselves.
    scores = np.where(causal_mask(T), -np.inf, scores)
    # Stable softmax over the keys (last axis): subtract each row's maximum.
    # The diagonal is never masked, so that maximum is always finite.
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
