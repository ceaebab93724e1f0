# attnprep: flash
# expect: fail block-size-independent constant-values matches-reference
# must-pass: shape scale input-unchanged memory
# diagnosis: flash-sum-not-accumulated
# mistake: sets the running sum to the current tile's sum (l = p.sum(1)) instead of accumulating alpha * l + p.sum(1), so only the last tile normalises
import numpy as np
def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    out = np.empty((T, v.shape[1]))
    for qs in range(0, T, block_size):
        qe = min(qs + block_size, T)
        qb = q[qs:qe] / np.sqrt(d)
        m = np.full(qe - qs, -np.inf); l = np.zeros(qe - qs); acc = np.zeros((qe - qs, v.shape[1]))
        for ks in range(0, qe if causal else T, block_size):
            ke = min(ks + block_size, T)
            s = qb @ k[ks:ke].T
            if causal:
                s = np.where(np.arange(ks, ke)[None, :] > np.arange(qs, qe)[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1))
            alpha = np.exp(m - m_new)
            p = np.exp(s - m_new[:, None])
            l = p.sum(axis=1)
            acc = alpha[:, None] * acc + p @ v[ks:ke]
            m = m_new
        out[qs:qe] = acc / l[:, None]
    return out
