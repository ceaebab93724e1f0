# attnprep: causal
# expect: pass
# style: vectorised for short sequences; above 256 positions the queries go in blocks of 100 rows, each block with its own row maxima, to bound the memory of the exps
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def _rows(q, k, v, start, stop):
    s = q[start:stop] @ k.T / np.sqrt(q.shape[1])
    blocked = np.arange(k.shape[0])[None, :] > np.arange(start, stop)[:, None]
    s = np.where(blocked, -np.inf, s)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    w = e / e.sum(axis=1, keepdims=True)
    return w @ v, w


def causal_attention(q, k, v):
    T = q.shape[0]
    if T <= 256:
        return _rows(q, k, v, 0, T)
    out, weights = np.empty((T, v.shape[1])), np.empty((T, T))
    for start in range(0, T, 100):
        stop = min(start + 100, T)
        out[start:stop], weights[start:stop] = _rows(q, k, v, start, stop)
    return out, weights
