# attnprep: causal
# expect: fail upper-triangle-zero
# diagnosis: tril-scores
# must-pass: mask shape input-unchanged
# mistake: "masks" with np.tril(scores), which sets the future scores to 0 instead of -inf, so exp(0) still gives them weight
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    s = np.tril(q @ k.T / np.sqrt(q.shape[1]))
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
