# attnprep: causal
# expect: fail upper-triangle-zero matches-reference prefix
# mistake: returns the softmax of the unmasked scores; only out uses the masked weights
# diagnosis: weights-before-mask
# must-pass: stable scale
import numpy as np


def _softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k.T / np.sqrt(d_k)
    weights = _softmax(scores)
    masked = _softmax(np.where(causal_mask(T), -np.inf, scores))
    return masked @ v, weights
