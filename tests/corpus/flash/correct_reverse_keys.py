# attnprep: flash
# expect: pass
# style: walks the key tiles backwards (diagonal tile first), guarding rows whose tile is fully masked
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    out = np.empty((T, v.shape[1]))
    starts = list(range(0, T, block_size))
    for qs in starts:
        qe = min(qs + block_size, T)
        m = np.full(qe - qs, -np.inf)
        l = np.zeros(qe - qs)
        acc = np.zeros((qe - qs, v.shape[1]))
        for ks in reversed(starts):
            if causal and ks >= qe:
                continue
            ke = min(ks + block_size, T)
            s = q[qs:qe] @ k[ks:ke].T / np.sqrt(d)
            if causal:
                s[np.arange(ks, ke)[None, :] > np.arange(qs, qe)[:, None]] = -np.inf
            m_new = np.maximum(m, s.max(axis=1))
            # a row with nothing visible yet (m_new = -inf) must not compute -inf - (-inf)
            safe = np.where(np.isneginf(m_new), 0.0, m_new)
            p = np.exp(s - safe[:, None])
            alpha = np.exp(m - safe)
            l = alpha * l + p.sum(axis=1)
            acc = alpha[:, None] * acc + p @ v[ks:ke]
            m = m_new
        out[qs:qe] = acc / l[:, None]
    return out
