# attnprep: flash
# expect: fail block-size-independent constant-values matches-reference
# must-pass: stable scale ragged-blocks causal
# mistake: rescales the accumulator when the max grows but forgets to rescale the running sum l
# diagnosis: flash-rescale-acc-only
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    out = np.zeros((T, v.shape[1]))
    for qs in range(0, T, block_size):
        qe = min(qs + block_size, T)
        m = np.full(qe - qs, -np.inf)
        l = np.zeros(qe - qs)
        acc = np.zeros((qe - qs, v.shape[1]))
        stop = qe if causal else T
        for ks in range(0, stop, block_size):
            ke = min(ks + block_size, stop)
            s = q[qs:qe] @ k[ks:ke].T / np.sqrt(d)
            if causal:
                s = np.where(np.arange(ks, ke)[None, :] > np.arange(qs, qe)[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1))
            p = np.exp(s - m_new[:, None])
            acc = acc * np.exp(m - m_new)[:, None] + p @ v[ks:ke]
            l = l + p.sum(axis=1)
            m = m_new
        out[qs:qe] = acc / l[:, None]
    return out
