# attnprep: causal
# expect: fail matches-reference
# mistake: np.tril the scores, then treats every 0 as blocked; a genuine score of exactly 0 (a zero query row, or q[i] orthogonal to an earlier k[j]) gets weight 0, or a whole row becomes NaN
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), 1)


def causal_attention(q, k, v):
    d_k = k.shape[1]
    scores = np.tril(q @ k.T / np.sqrt(d_k))
    scores[scores == 0] = -np.inf        # the zeros tril put above the diagonal
    scores = scores - scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=1, keepdims=True)
    return weights @ v, weights
