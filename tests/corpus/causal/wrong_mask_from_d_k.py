# attnprep: causal
# expect: fail shape scale
# mistake: unpacks q.shape in the wrong order, so the mask is sized (d_k, d_k) and the scale uses T
# diagnosis: mask-from-d-k
# must-pass: stable
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    d_k, T = q.shape
    scores = q @ k.T / np.sqrt(d_k)
    scores = np.where(causal_mask(T), -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
