# attnprep: flash
# expect: pass
# style: tiles from np.array_split into ceil(T / block_size) near-equal chunks (never longer than block_size), scale folded into k per tile, -np.inf causal fill via np.where on global index grids
import math

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = np.shape(q)
    n = math.ceil(T / block_size)
    tiles = np.array_split(np.arange(T), n)
    out = np.zeros((T, np.shape(v)[1]))
    for qi in tiles:
        m = np.full(len(qi), -np.inf)
        l = np.zeros(len(qi))
        acc = np.zeros((len(qi), out.shape[1]))
        for ki in tiles:
            if causal and ki[0] > qi[-1]:
                break
            s = q[qi] @ (k[ki] / math.sqrt(d)).T
            if causal:
                s = np.where(ki[None, :] > qi[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1))
            alpha = np.exp(m - m_new)
            p = np.exp(s - m_new[:, None])
            l = l * alpha + p.sum(axis=1)
            acc = acc * alpha[:, None] + p @ v[ki]
            m = m_new
        out[qi] = acc / l[:, None]
    return out
