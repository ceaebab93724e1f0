# attnprep: causal
# expect: fail input-unchanged
# mistake: for long sequences scales q in place to avoid a copy
# must-pass: stable scale prefix matches-reference
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d = q.shape
    if T >= 512:
        q *= 1.0 / np.sqrt(d)  # no extra (T, d) copy on long inputs
    else:
        q = q / np.sqrt(d)
    s = np.where(causal_mask(T), -np.inf, q @ k.T)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
