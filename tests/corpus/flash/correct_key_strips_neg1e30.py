# attnprep: flash
# expect: pass
# style: all queries against one key tile at a time ((T, block_size) strips of scores), m starting at -1e30
#        instead of -inf, np.errstate around the exps
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    m = np.full(T, -1e30)
    l = np.zeros(T)
    acc = np.zeros((T, v.shape[1]))
    rows = np.arange(T)[:, None]
    for ks in range(0, T, block_size):
        kb = k[ks:ks + block_size]
        s = (q @ kb.T) / np.sqrt(d)
        if causal:
            s = np.where(np.arange(ks, ks + len(kb))[None] > rows, -np.inf, s)
        mn = np.maximum(m, s.max(1))
        with np.errstate(under="ignore"):
            a = np.exp(m - mn)
            p = np.exp(s - mn[:, None])
        l = l * a + p.sum(1)
        acc = acc * a[:, None] + p @ v[ks:ks + block_size]
        m = mn
    return acc / l[:, None]
