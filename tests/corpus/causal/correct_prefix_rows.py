# attnprep: causal
# expect: pass
# style: one query row at a time over its allowed prefix only, scale folded into a copy of k; returns lists
import numpy as np


def causal_mask(T):
    return np.greater.outer(np.arange(T), np.arange(T)).T


def causal_attention(q, k, v):
    q = np.asarray(q, dtype=np.float64)
    k_scaled = np.array(k, dtype=np.float64) / np.sqrt(np.shape(k)[1])
    v = np.asarray(v, dtype=np.float64)
    T = q.shape[0]
    weights = np.zeros((T, T))
    out = []
    for i in range(T):
        s = k_scaled[: i + 1] @ q[i]
        p = np.exp(s - s.max())
        p /= p.sum()
        weights[i, : i + 1] = p
        out.append((p @ v[: i + 1]).tolist())
    return [out, weights.tolist()]
