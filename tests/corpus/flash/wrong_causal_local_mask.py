# attnprep: flash
# expect: fail causal matches-reference
# must-pass: stable scale ragged-blocks
# mistake: masks every tile with a triangle built from offsets inside the tile, not from global positions
# diagnosis: flash-local-causal-mask
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    out = np.zeros((T, v.shape[1]))
    for qs in range(0, T, block_size):
        qe = min(qs + block_size, T)
        m = np.full(qe - qs, -np.inf)
        l = np.zeros(qe - qs)
        acc = np.zeros((qe - qs, v.shape[1]))
        for ks in range(0, T, block_size):
            ke = min(ks + block_size, T)
            s = q[qs:qe] @ k[ks:ke].T / np.sqrt(d)
            if causal:
                local = np.triu(np.ones((qe - qs, ke - ks), dtype=bool), 1)
                s = np.where(local, -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1))
            alpha = np.exp(m - m_new)
            p = np.exp(s - m_new[:, None])
            l = alpha * l + p.sum(axis=1)
            acc = alpha[:, None] * acc + p @ v[ks:ke]
            m = m_new
        out[qs:qe] = acc / l[:, None]
    return out
