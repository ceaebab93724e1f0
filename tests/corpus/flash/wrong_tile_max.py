# attnprep: flash
# expect: fail block-size-independent
# must-pass: stable scale ragged-blocks causal
# mistake: each tile subtracts its own row maximum but there is no running max, so tiles are summed on different scales
# diagnosis: flash-tile-max
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    out = np.empty((T, v.shape[1]))
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
            p = np.exp(s - s.max(axis=1, keepdims=True))
            l = l + p.sum(axis=1)
            acc = acc + p @ v[ks:ke]
        out[qs:qe] = acc / l[:, None]
    return out
