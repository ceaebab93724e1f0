# attnprep: flash
# expect: fail matches-reference stable
# mistake: m_new is the current block's max instead of max(m, block max); algebraically still exact, but when the max drops between blocks exp(m - m_new) is > 1 and overflows to inf (nan) for scores near +1e4 followed by -1e4
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    d_v = v.shape[1]
    scale = 1.0 / np.sqrt(d)
    out = np.empty((T, d_v))

    for qs in range(0, T, block_size):
        qe = min(qs + block_size, T)
        m = np.full(qe - qs, -np.inf)
        l = np.zeros(qe - qs)
        acc = np.zeros((qe - qs, d_v))
        for ks in range(0, qe if causal else T, block_size):
            ke = min(ks + block_size, T)
            s = q[qs:qe] @ k[ks:ke].T * scale
            if causal:
                s = np.where(np.arange(ks, ke)[None, :] <= np.arange(qs, qe)[:, None], s, -np.inf)
            m_new = s.max(axis=1)                       # shift by this block's max
            alpha = np.exp(m - m_new)
            p = np.exp(s - m_new[:, None])
            l = alpha * l + p.sum(axis=1)
            acc = alpha[:, None] * acc + p @ v[ks:ke]
            m = m_new
        out[qs:qe] = acc / l[:, None]
    return out
