# attnprep: causal
# expect: fail prefix matches-reference
# diagnosis: out-before-mask
# mistake: computes out from the unmasked softmax and masks only the weights it returns, so out sees the future
# must-pass: stable scale
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def _softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def causal_attention(q, k, v):
    scores = q @ k.T / np.sqrt(q.shape[1])
    out = _softmax(scores) @ v
    weights = _softmax(np.where(causal_mask(q.shape[0]), -np.inf, scores))
    return out, weights
