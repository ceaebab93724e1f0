# attnprep: causal
# expect: fail mask matches-reference prefix upper-triangle-zero
# mistake: builds the allowed set with np.tril(k=-1), so inside attention the diagonal is masked too
# diagnosis: mask-includes-diagonal
# must-pass: stable scale
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    allowed = np.tril(np.ones((T, T)), k=-1)
    scores = q @ k.T / np.sqrt(d_k)
    scores = np.where(allowed == 1, scores, -1e9)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
