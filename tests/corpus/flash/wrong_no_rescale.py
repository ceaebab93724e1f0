# attnprep: flash
# expect: fail block-size-independent matches-reference
# must-pass: stable scale ragged-blocks causal
# mistake: updates the running max but never rescales the running sum and accumulator by exp(m_old - m_new)
# diagnosis: flash-no-rescale
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    out = np.zeros((T, v.shape[1]))
    for qs in range(0, T, block_size):
        qe = min(qs + block_size, T)
        m = np.full(qe - qs, -np.inf)
        l = np.zeros(qe - qs)
        acc = np.zeros((qe - qs, v.shape[1]))
        for ks in range(0, T, block_size):
            ke = min(ks + block_size, T)
            s = q[qs:qe] @ k[ks:ke].T / np.sqrt(d)
            if causal:
                s = np.where(np.arange(ks, ke)[None, :] > np.arange(qs, qe)[:, None], -np.inf, s)
            m = np.maximum(m, s.max(axis=1))
            p = np.exp(s - m[:, None])
            p[np.isnan(p)] = 0.0
            l = l + p.sum(axis=1)
            acc = acc + p @ v[ks:ke]
        out[qs:qe] = acc / l[:, None]
    return out
