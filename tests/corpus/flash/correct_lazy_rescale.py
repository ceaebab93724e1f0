# attnprep: flash
# expect: pass
# style: block_size clamped to T, rescales only the rows whose running max grew (boolean row selection, in-place updates), finfo.min causal fill, np.einsum for the tile scores
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    q, k, v = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float)
    T, d = q.shape
    B = max(1, min(int(block_size), T))
    out = np.zeros((T, v.shape[1]))
    neg = np.finfo(np.float64).min
    for qs in range(0, T, B):
        qe = min(qs + B, T)
        rows = np.arange(qs, qe)
        m = np.full(qe - qs, -np.inf)
        l = np.zeros(qe - qs)
        acc = np.zeros((qe - qs, v.shape[1]))
        for ks in range(0, T, B):
            ke = min(ks + B, T)
            if causal and ks > qe - 1:
                break
            s = np.einsum("id,jd->ij", q[qs:qe], k[ks:ke]) / np.sqrt(d)
            if causal:
                s[np.arange(ks, ke)[None, :] > rows[:, None]] = neg
            tile_max = s.max(axis=1)
            grew = tile_max > m
            if grew.any():
                factor = np.exp(m[grew] - tile_max[grew])
                l[grew] *= factor
                acc[grew] *= factor[:, None]
                m[grew] = tile_max[grew]
            p = np.exp(s - m[:, None])
            l += p.sum(axis=1)
            acc += p @ v[ks:ke]
        out[qs:qe] = acc / l[:, None]
    return out
