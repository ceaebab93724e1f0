# attnprep: attention
# expect: pass
# style: normalisation deferred until after the value product (exp @ v, then / row sums), q pre-scaled, returns a nested list
import numpy as np


def attention(q, k, v, mask=None):
    q = np.asarray(q, dtype=float) / np.sqrt(np.shape(q)[-1])
    s = np.matmul(q, np.moveaxis(np.asarray(k, dtype=float), -1, -2))
    if mask is not None:
        s = np.where(mask, -np.inf, s)
    e = np.exp(s - s.max(-1, keepdims=True))
    num = e @ np.asarray(v, dtype=float)
    return (num / e.sum(-1, keepdims=True)).tolist()
