# attnprep: causal
# expect: fail matches-reference
# must-pass: mask shape scale
# mistake: zeroes the future with np.tril, then treats every score equal to 0 as masked, so a query or key of zeros (a real score of exactly 0) loses keys it may see, or its whole row becomes 0/0
# diagnosis: zero-scores-blocked
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    scores = np.tril(q @ k.T) / np.sqrt(q.shape[-1])
    scores[scores == 0] = -np.inf
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
