# attnprep: flash
# expect: pass
# style: causal tiles masked by np.triu(ones, k=qs-ks+1) (global offsets through the diagonal index), alpha guarded with np.where for rows still at -inf, key tiles visited in full even past the diagonal
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    bs = int(block_size)
    out = np.empty((T, v.shape[1]), dtype=np.float64)
    for qs in range(0, T, bs):
        qe = min(qs + bs, T)
        qb = q[qs:qe] * d ** -0.5
        m = np.full((qe - qs, 1), -np.inf)
        l = np.zeros((qe - qs, 1))
        acc = np.zeros((qe - qs, v.shape[1]))
        for ks in range(0, T, bs):
            ke = min(ks + bs, T)
            s = qb @ k[ks:ke].T
            if causal:
                s[np.triu(np.ones(s.shape, dtype=bool), k=qs - ks + 1)] = -np.inf
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            with np.errstate(invalid="ignore"):
                alpha = np.where(np.isneginf(m_new), 1.0, np.exp(m - m_new))
                p = np.where(np.isneginf(m_new), 0.0, np.exp(s - m_new))
            l = alpha * l + p.sum(axis=1, keepdims=True)
            acc = alpha * acc + p @ v[ks:ke]
            m = m_new
        out[qs:qe] = acc / l
    return out
