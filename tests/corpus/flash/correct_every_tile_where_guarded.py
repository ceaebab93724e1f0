# attnprep: flash
# expect: pass
# style: no tile skipping at all (every tile visited, future ones fully masked), with the exp(-inf - -inf) case guarded by np.where so fully masked rows of a tile contribute nothing; a block_size larger than T is clamped
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    bs = max(1, min(int(block_size), T))
    scale = d ** -0.5
    out = np.empty((T, v.shape[1]))

    for qs in range(0, T, bs):
        qe = min(T, qs + bs)
        qi = np.arange(qs, qe)
        m = np.full(qe - qs, -np.inf)
        l = np.zeros(qe - qs)
        acc = np.zeros((qe - qs, v.shape[1]))
        for ks in range(0, T, bs):
            ke = min(T, ks + bs)
            s = q[qs:qe] @ k[ks:ke].T * scale
            if causal:
                s = np.where(np.arange(ks, ke)[None, :] <= qi[:, None], s, -np.inf)
            m_new = np.maximum(m, s.max(axis=1))
            finite = np.isfinite(m_new)
            safe = np.where(finite, m_new, 0.0)
            alpha = np.where(finite, np.exp(m - safe), 1.0)
            p = np.exp(s - safe[:, None])                 # exp(-inf) = 0 for masked keys
            l = l * alpha + p.sum(axis=1)
            acc = acc * alpha[:, None] + p @ v[ks:ke]
            m = m_new
        out[qs:qe] = acc / l[:, None]
    return out
