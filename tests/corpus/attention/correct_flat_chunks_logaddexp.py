# attnprep: attention
# expect: pass
# style: flattens the batch dims, broadcasts the mask to the full shape, walks the queries in chunks of 256 and normalises with np.logaddexp.reduce
import numpy as np


def attention(q, k, v, mask=None):
    *batch, t_q, d_k = q.shape
    t_k, d_v = k.shape[-2], v.shape[-1]
    n = int(np.prod(batch)) if batch else 1
    qf, kf, vf = q.reshape(n, t_q, d_k), k.reshape(n, t_k, d_k), v.reshape(n, t_k, d_v)
    mf = None if mask is None else np.broadcast_to(mask, (*batch, t_q, t_k)).reshape(n, t_q, t_k)
    out = np.empty((n, t_q, d_v))
    for b in range(n):
        for start in range(0, t_q, 256):
            rows = slice(start, start + 256)
            s = qf[b, rows] @ kf[b].T / np.sqrt(d_k)
            if mf is not None:
                s = np.where(mf[b, rows], -np.inf, s)
            log_w = s - np.logaddexp.reduce(s, axis=-1, keepdims=True)
            out[b, rows] = np.exp(log_w) @ vf[b]
    return out.reshape(*batch, t_q, d_v)
