# attnprep: attention
# expect: fail matches-reference
# must-pass: shape scale
# mistake: applies the mask by multiplying the scores by ~mask and then sends every zero score to -inf, so keys whose real score is exactly 0 (a query or key of zeros) are dropped as if blocked
import numpy as np


def attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = scores * ~np.asarray(mask, dtype=bool)
    scores = np.where(scores == 0.0, -np.inf, scores)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    p = np.exp(scores)
    return (p / p.sum(axis=-1, keepdims=True)) @ v
