# attnprep: flash
# expect: pass
# style: FlashAttention-1 order (key tiles outside, query tiles inside), statistics for all T rows, -1e9 mask
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    d_v = v.shape[1]
    M = np.full((T, 1), -np.inf)
    L = np.zeros((T, 1))
    O = np.zeros((T, d_v))
    for ks in range(0, T, block_size):
        kb, vb = k[ks:ks + block_size], v[ks:ks + block_size]
        for qs in range(0, T, block_size):
            if causal and ks > min(qs + block_size, T) - 1:
                continue  # every query of this tile precedes every key of the key tile
            qb = q[qs:qs + block_size]
            S = (qb @ kb.T) / np.sqrt(d)
            if causal:
                rows = np.arange(qs, qs + len(qb))[:, None]
                cols = np.arange(ks, ks + len(kb))[None, :]
                S = S + np.where(cols > rows, -1e9, 0.0)
            m_old = M[qs:qs + len(qb)]
            m_new = np.maximum(m_old, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            c = np.exp(m_old - m_new)
            L[qs:qs + len(qb)] = c * L[qs:qs + len(qb)] + P.sum(axis=1, keepdims=True)
            O[qs:qs + len(qb)] = c * O[qs:qs + len(qb)] + P @ vb
            M[qs:qs + len(qb)] = m_new
    return O / L
