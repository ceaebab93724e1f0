# attnprep: flash
# expect: fail block-size-independent causal matches-reference
# must-pass: stable scale ragged-blocks
# mistake: the causal mask is a triangle of offsets inside the tile, applied to every tile up to the diagonal
# diagnosis: flash-local-causal-mask
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    d_v = v.shape[1]
    out = np.empty((T, d_v))
    for i0 in range(0, T, block_size):
        i1 = min(i0 + block_size, T)
        qb = q[i0:i1]
        m = np.full(i1 - i0, -np.inf)
        l = np.zeros(i1 - i0)
        acc = np.zeros((i1 - i0, d_v))
        for j0 in range(0, T, block_size):
            if causal and j0 > i0:
                break                     # future tiles
            j1 = min(j0 + block_size, T)
            s = qb @ k[j0:j1].T / np.sqrt(d)
            if causal:
                tri = np.tril(np.ones((i1 - i0, j1 - j0), dtype=bool))
                s = np.where(tri, s, -np.inf)
            m_new = np.maximum(m, s.max(axis=1))
            corr = np.exp(m - m_new)
            p = np.exp(s - m_new[:, None])
            l = corr * l + p.sum(axis=1)
            acc = corr[:, None] * acc + p @ v[j0:j1]
            m = m_new
        out[i0:i1] = acc / l[:, None]
    return out
