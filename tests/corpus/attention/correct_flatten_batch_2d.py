# attnprep: attention
# expect: pass
# style: the batch dims flattened, 2-D np.dot per batch element, the mask broadcast and flattened alongside
import numpy as np


def _attend_2d(q, k, v, blocked):
    s = np.dot(q, k.T) / np.sqrt(q.shape[1])
    s[blocked] = -np.inf
    s -= s.max(axis=1, keepdims=True)
    w = np.exp(s)
    w /= w.sum(axis=1, keepdims=True)
    return np.dot(w, v)


def attention(q, k, v, mask=None):
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    lead = q.shape[:-2]
    t_q, t_k = q.shape[-2], k.shape[-2]
    if mask is None:
        mask = np.zeros((t_q, t_k), dtype=bool)
    m = np.broadcast_to(mask, lead + (t_q, t_k)).reshape(-1, t_q, t_k)
    qf = q.reshape(-1, t_q, q.shape[-1])
    kf = k.reshape(-1, t_k, k.shape[-1])
    vf = v.reshape(-1, t_k, v.shape[-1])
    out = np.stack([_attend_2d(qf[i], kf[i], vf[i], m[i]) for i in range(qf.shape[0])])
    return out.reshape(lead + (t_q, v.shape[-1]))
