# attnprep: attention
# expect: pass
# style: flatten the batch dims and loop over every query in plain Python
import math

import numpy as np


def attention(q, k, v, mask=None):
    q, k, v = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float)
    batch = q.shape[:-2]
    t_q, d_k = q.shape[-2:]
    t_k, d_v = v.shape[-2:]
    if mask is None:
        mask = np.zeros((t_q, t_k), dtype=bool)
    m = np.broadcast_to(mask, (*batch, t_q, t_k)).reshape(-1, t_q, t_k)
    qf, kf, vf = q.reshape(-1, t_q, d_k), k.reshape(-1, t_k, d_k), v.reshape(-1, t_k, d_v)
    out = np.zeros((qf.shape[0], t_q, d_v))
    for b in range(qf.shape[0]):
        for i in range(t_q):
            scores = [float(qf[b, i] @ kf[b, j]) / math.sqrt(d_k) for j in range(t_k)]
            open_scores = [s for s, blocked in zip(scores, m[b, i], strict=True) if not blocked]
            top = max(open_scores)
            exps = [0.0 if blocked else math.exp(s - top) for s, blocked in zip(scores, m[b, i], strict=True)]
            total = sum(exps)
            for j in range(t_k):
                out[b, i] += exps[j] / total * vf[b, j]
    return out.reshape(*batch, t_q, d_v)
