# attnprep: causal
# expect: fail scale
# diagnosis: scale-precedence
# must-pass: mask shape sum-to-one upper-triangle-zero prefix stable input-unchanged
# mistake: writes the scale as `/ d_k ** 1/2`, which Python reads as (/ d_k) / 2, not / sqrt(d_k)
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    d_k = q.shape[1]
    s = q @ k.T / d_k ** 1/2
    s = np.where(causal_mask(q.shape[0]), -np.inf, s)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
