# attnprep: flash
# expect: fail causal
# must-pass: shape ragged-blocks scale constant-values input-unchanged memory
# diagnosis: flash-no-mask-in-diagonal-tile
# mistake: makes causal=True stop the key loop after the diagonal tile but never masks inside that tile, so a query sees the later keys of its own tile
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    out = np.empty((T, v.shape[1]))
    for qs in range(0, T, block_size):
        qe = min(qs + block_size, T)
        qb = q[qs:qe] / np.sqrt(d)
        m = np.full(qe - qs, -np.inf)
        l = np.zeros(qe - qs)
        acc = np.zeros((qe - qs, v.shape[1]))
        k_stop = qe if causal else T
        for ks in range(0, k_stop, block_size):
            ke = min(ks + block_size, k_stop)
            s = qb @ k[ks:ke].T
            m_new = np.maximum(m, s.max(axis=1))
            alpha = np.exp(m - m_new)
            p = np.exp(s - m_new[:, None])
            l = alpha * l + p.sum(axis=1)
            acc = alpha[:, None] * acc + p @ v[ks:ke]
            m = m_new
        out[qs:qe] = acc / l[:, None]
    return out
