# attnprep: causal
# expect: fail scale matches-reference
# must-pass: mask shape sum-to-one upper-triangle-zero prefix input-unchanged
# mistake: divides the scores by math.isqrt(d_k), the integer square root, which equals sqrt(d_k) only for perfect squares
import math
import numpy as np

def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)

def causal_attention(q, k, v):
    s = q @ k.T / math.isqrt(q.shape[1])
    s = np.where(causal_mask(q.shape[0]), -np.inf, s)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
