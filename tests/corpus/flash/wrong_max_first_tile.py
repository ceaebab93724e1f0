# attnprep: flash
# expect: fail stable
# must-pass: scale
# mistake: takes the max from the first key tile only and never updates it; exact until a later tile's scores overflow
# diagnosis: flash-max-not-updated
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    out = np.zeros((T, v.shape[1]))
    for qs in range(0, T, block_size):
        qe = min(qs + block_size, T)
        m = None
        l = np.zeros(qe - qs)
        acc = np.zeros((qe - qs, v.shape[1]))
        stop = qe if causal else T
        for ks in range(0, stop, block_size):
            ke = min(ks + block_size, stop)
            s = q[qs:qe] @ k[ks:ke].T / np.sqrt(d)
            if causal:
                s = np.where(np.arange(ks, ke)[None, :] > np.arange(qs, qe)[:, None], -np.inf, s)
            if m is None:
                m = s.max(axis=1)
            p = np.exp(s - m[:, None])
            l = l + p.sum(axis=1)
            acc = acc + p @ v[ks:ke]
        out[qs:qe] = acc / l[:, None]
    return out
