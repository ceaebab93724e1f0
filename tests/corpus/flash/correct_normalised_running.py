# attnprep: flash
# expect: pass
# style: keeps the output normalised after every tile (o = (alpha*l*o + p@v) / l_new); -1e30 triu on the diagonal tile
import math

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = np.shape(q)
    nb = math.ceil(T / block_size)
    result = np.zeros((T, np.shape(v)[1]))
    for i in range(nb):
        r0, r1 = i * block_size, min((i + 1) * block_size, T)
        qi = q[r0:r1]
        m, l, o = np.full(r1 - r0, -math.inf), np.zeros(r1 - r0), np.zeros((r1 - r0, v.shape[1]))
        for j in range(i + 1 if causal else nb):
            c0, c1 = j * block_size, min((j + 1) * block_size, T)
            s = np.einsum("ik,jk->ij", qi, k[c0:c1]) / math.sqrt(d)
            if causal and j == i:
                s = s + np.triu(np.full((r1 - r0, c1 - c0), -1e30), 1)
            m_new = np.maximum(m, s.max(1))
            p = np.exp(s - m_new[:, None])
            alpha = np.exp(m - m_new)
            l_new = alpha * l + p.sum(1)
            o = ((alpha * l)[:, None] * o + p @ v[c0:c1]) / l_new[:, None]
            m, l = m_new, l_new
        result[r0:r1] = o
    return result
