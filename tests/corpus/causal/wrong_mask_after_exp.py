# attnprep: causal
# expect: fail stable
# mistake: masks after exp; the row max includes the future, so a dominant future key underflows the rest to 0/0
# diagnosis: mask-after-exp
# must-pass: scale
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k.T / np.sqrt(d_k)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    e = e * ~causal_mask(T)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
