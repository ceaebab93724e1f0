# attnprep: attention
# expect: pass
# style: a streaming (online) softmax over the keys one at a time, with a running max and rescaled accumulator
import numpy as np


def attention(q, k, v, mask=None):
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    scale = 1.0 / np.sqrt(q.shape[-1])
    t_k = k.shape[-2]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    t_q = q.shape[-2]
    blocked = None
    if mask is not None:
        blocked = np.broadcast_to(np.asarray(mask, dtype=bool), (*lead, t_q, t_k))
    m = np.full((*lead, t_q, 1), -np.inf)
    den = np.zeros((*lead, t_q, 1))
    acc = np.zeros((*lead, t_q, v.shape[-1]))
    for j in range(t_k):
        s = (q @ k[..., j, :, None]) * scale  # (..., T_q, 1)
        if blocked is not None:
            s = np.where(blocked[..., j, None], -np.inf, s)
        new_m = np.maximum(m, s)
        with np.errstate(invalid="ignore"):
            corr = np.where(np.isneginf(new_m), 0.0, np.exp(m - new_m))
            p = np.where(np.isneginf(s), 0.0, np.exp(s - new_m))
        den = den * corr + p
        acc = acc * corr + p * v[..., j, None, :]
        m = new_m
    return acc / den
