# attnprep: causal
# expect: fail upper-triangle-zero
# mistake: adds -1e4 to the future scores (a half-precision habit); a future key scoring 1e4 above the past still wins
# diagnosis: mask-fill-too-small
# must-pass: stable scale
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    scores = q @ k.T / np.sqrt(q.shape[1]) + causal_mask(q.shape[0]) * -1e4
    scores = scores - scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=1, keepdims=True)
    return weights @ v, weights
