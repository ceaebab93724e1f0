# attnprep: causal
# expect: fail matches-reference
# mistake: switches to float32 for long sequences to halve the memory of the (T, T) scores
# must-pass: stable scale prefix sum-to-one
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    T, d = q.shape
    dt = np.float32 if T > 256 else np.float64
    q, k, v = (np.asarray(a, dtype=dt) for a in (q, k, v))
    s = q @ k.T / dt(np.sqrt(d))
    s = np.where(causal_mask(T), -np.inf, s)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return (w @ v).astype(np.float64), w.astype(np.float64)
