# attnprep: flash
# expect: fail memory
# must-pass: stable scale causal
# mistake: builds the whole (T, T) bool "future" mask once by comparing positions, and slices a strip of it per
#          block of keys: tiled scores, an untiled mask of T x T bytes
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    future = np.arange(T)[None, :] > np.arange(T)[:, None] if causal else None
    m = np.full(T, -np.inf)
    l = np.zeros(T)
    acc = np.zeros((T, v.shape[1]))
    for ks in range(0, T, block_size):
        kb = k[ks:ks + block_size]
        s = (q @ kb.T) / np.sqrt(d)
        if causal:
            s = np.where(future[:, ks:ks + len(kb)], -np.inf, s)
        mn = np.maximum(m, s.max(1))
        safe = np.where(np.isinf(mn), 0.0, mn)
        a = np.exp(m - safe)
        p = np.exp(s - safe[:, None])
        l = l * a + p.sum(1)
        acc = acc * a[:, None] + p @ v[ks:ks + block_size]
        m = mn
    return acc / l[:, None]
