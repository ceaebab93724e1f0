# attnprep: attention
# expect: pass
# style: np.ndindex over the leading dims with 2-D np.matmul per element, the mask broadcast per element, min-of-finfo fill, -1e30 via np.putmask
import numpy as np


def attention(q, k, v, mask=None):
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    lead = q.shape[:-2]
    t_q, t_k = q.shape[-2], k.shape[-2]
    out = np.empty((*lead, t_q, v.shape[-1]))
    if mask is not None:
        mask = np.broadcast_to(mask, (*lead, t_q, t_k))
    for idx in np.ndindex(*lead):
        s = np.matmul(q[idx], k[idx].T) * (q.shape[-1] ** -0.5)
        if mask is not None:
            np.putmask(s, mask[idx], -1e30)
        s -= s.max(axis=1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(axis=1)[:, None]
        out[idx] = s @ v[idx]
    return out
