# attnprep: flash
# expect: fail ragged-blocks block-size-independent matches-reference
# must-pass: stable scale causal
# mistake: loops over T // block_size blocks, dropping the final partial block of queries and keys
# diagnosis: flash-drop-tail
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    n_blocks = T // block_size
    out = np.zeros((T, v.shape[1]))
    for i in range(n_blocks):
        qs, qe = i * block_size, (i + 1) * block_size
        m = np.full(block_size, -np.inf)
        l = np.zeros(block_size)
        acc = np.zeros((block_size, v.shape[1]))
        for j in range(i + 1 if causal else n_blocks):
            ks, ke = j * block_size, (j + 1) * block_size
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
