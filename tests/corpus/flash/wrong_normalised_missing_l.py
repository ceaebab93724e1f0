# attnprep: flash
# expect: fail block-size-independent matches-reference
# must-pass: shape scale memory input-unchanged
# diagnosis: flash-normalised-missing-l
# mistake: keeps the output normalised after every tile but rescales the old output by exp(m_old - m_new) only, forgetting the factor l_old / l_new
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    out = np.empty((T, v.shape[1]))
    for qs in range(0, T, block_size):
        qe = min(qs + block_size, T)
        qb = q[qs:qe] / np.sqrt(d)
        m = np.full(qe - qs, -np.inf)
        l = np.zeros(qe - qs)
        o = np.zeros((qe - qs, v.shape[1]))
        for ks in range(0, qe if causal else T, block_size):
            ke = min(ks + block_size, T)
            s = qb @ k[ks:ke].T
            if causal:
                s = np.where(np.arange(ks, ke)[None, :] > np.arange(qs, qe)[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1))
            alpha = np.exp(m - m_new)
            p = np.exp(s - m_new[:, None])
            l_new = alpha * l + p.sum(axis=1)
            o = (alpha[:, None] * o + p @ v[ks:ke]) / l_new[:, None]
            m, l = m_new, l_new
        out[qs:qe] = o
    return out
