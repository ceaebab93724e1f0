# attnprep: causal
# expect: fail upper-triangle-zero
# mistake: puts -1e5 in the future of the raw scores q @ k.T and divides by sqrt(d_k) afterwards: at d_k = 128 the
# fill shrinks to -8,839, above real scores near -1e4, and the future leaks
# must-pass: mask shape prefix scale
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    raw = np.where(causal_mask(T), -1e5, q @ k.T)
    scores = raw / np.sqrt(d_k)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
