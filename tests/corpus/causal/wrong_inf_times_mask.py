# attnprep: causal
# expect: fail mask sum-to-one upper-triangle-zero
# mistake: builds an additive mask as mask * -inf, but 0 * -inf is nan, so every allowed score becomes nan too
# diagnosis: mask-times-inf
# must-pass: stable
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    scores = q @ k.T / np.sqrt(q.shape[1])
    scores = scores + causal_mask(q.shape[0]) * -np.inf
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
