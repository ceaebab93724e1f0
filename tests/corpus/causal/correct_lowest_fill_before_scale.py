# attnprep: causal
# expect: pass
# style: fills the future of the raw scores with float64's lowest number and divides by sqrt(d_k) afterwards: far
# below any real score at every d_k
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    d_k = q.shape[-1]
    raw = np.where(causal_mask(q.shape[0]), np.finfo(np.float64).min, q @ k.T)
    scores = raw / np.sqrt(d_k)
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
