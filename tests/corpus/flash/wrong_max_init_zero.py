# attnprep: flash
# expect: fail stable
# must-pass: scale
# mistake: starts the running max at 0 instead of -inf; with every score near -1e4, exp underflows and 0/0 follows
# diagnosis: flash-max-starts-at-zero
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    out = np.zeros((T, v.shape[1]))
    for qs in range(0, T, block_size):
        qe = min(qs + block_size, T)
        m = np.zeros(qe - qs)
        l = np.zeros(qe - qs)
        acc = np.zeros((qe - qs, v.shape[1]))
        stop = qe if causal else T
        for ks in range(0, stop, block_size):
            ke = min(ks + block_size, stop)
            s = q[qs:qe] @ k[ks:ke].T / np.sqrt(d)
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
