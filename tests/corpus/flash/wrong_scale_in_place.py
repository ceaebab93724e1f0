# attnprep: flash
# expect: fail input-unchanged
# must-pass: stable scale
# diagnosis: scale-folded-in-place
# mistake: scales q in place once up front, rewriting the caller's queries
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    q /= np.sqrt(d)
    out = np.zeros((T, v.shape[1]))
    for qs in range(0, T, block_size):
        qe = min(qs + block_size, T)
        m = np.full(qe - qs, -np.inf)
        l = np.zeros(qe - qs)
        acc = np.zeros((qe - qs, v.shape[1]))
        stop = qe if causal else T
        for ks in range(0, stop, block_size):
            ke = min(ks + block_size, stop)
            s = q[qs:qe] @ k[ks:ke].T
            if causal:
                s = np.where(np.arange(ks, ke)[None, :] > np.arange(qs, qe)[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1))
            alpha = np.exp(m - m_new)
            p = np.exp(s - m_new[:, None])
            l = alpha * l + p.sum(axis=1)
            acc = alpha[:, None] * acc + p @ v[ks:ke]
            m = m_new
        out[qs:qe] = acc / l[:, None]
    return out
