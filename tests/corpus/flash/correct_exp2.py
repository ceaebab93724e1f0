# attnprep: flash
# expect: pass
# style: base-2 exponentials as in the GPU kernels (log2(e) folded into q, np.exp2), finfo.min mask, list output
import numpy as np

LOG2E = 1.4426950408889634


def flash_attention(q, k, v, block_size=64, causal=False, **kwargs):
    q = np.asarray(q, dtype=np.float64)
    T, d = q.shape
    c = LOG2E / np.sqrt(d)
    rows = []
    for qs in range(0, T, block_size):
        qb = q[qs:qs + block_size] * c          # scores come out in log2 units
        n = len(qb)
        m2 = np.full((n, 1), -np.inf)
        l = np.zeros((n, 1))
        o = np.zeros((n, v.shape[1]))
        for ks in range(0, T, block_size):
            if causal and ks > qs + n - 1:
                break
            s2 = np.matmul(qb, k[ks:ks + block_size].T)
            if causal:
                future = np.arange(ks, ks + s2.shape[1]) > np.arange(qs, qs + n)[:, None]
                s2[future] = np.finfo(np.float64).min
            m_new = np.maximum(m2, s2.max(axis=1, keepdims=True))
            p = np.exp2(s2 - m_new)
            scale = np.exp2(m2 - m_new)
            l = l * scale + p.sum(axis=1, keepdims=True)
            o = o * scale + np.matmul(p, v[ks:ks + block_size])
            m2 = m_new
        rows.extend((o / l).tolist())
    return rows
