# attnprep: causal
# expect: fail sum-to-one matches-reference
# diagnosis: missing-keepdims
# must-pass: scale
# mistake: row max and row sum without keepdims; on a square (T, T) matrix they broadcast along the wrong axis
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    scores = q @ k.T / np.sqrt(q.shape[1])
    scores = np.where(causal_mask(q.shape[0]), -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1))
    weights = e / e.sum(axis=-1)
    return weights @ v, weights
