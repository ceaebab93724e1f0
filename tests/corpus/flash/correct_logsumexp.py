# attnprep: flash
# expect: pass
# style: keeps a running log-sum-exp and an already-normalised output instead of (m, l, acc)
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    q, k, v = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float)
    T, d = q.shape
    out = np.zeros((T, v.shape[1]))
    for qs in range(0, T, block_size):
        qe = min(T, qs + block_size)
        lse = np.full((qe - qs, 1), -np.inf)
        o = np.zeros((qe - qs, v.shape[1]))
        for ks in range(0, qe if causal else T, block_size):
            ke = min(ks + block_size, qe if causal else T)
            s = np.einsum("id,jd->ij", q[qs:qe], k[ks:ke]) / np.sqrt(d)
            if causal:
                s[np.arange(ks, ke)[None, :] > np.arange(qs, qe)[:, None]] = -np.inf
            mx = s.max(axis=1, keepdims=True)
            with np.errstate(divide="ignore"):
                block_lse = mx + np.log(np.exp(s - np.where(np.isfinite(mx), mx, 0.0)).sum(axis=1, keepdims=True))
            new_lse = np.logaddexp(lse, block_lse)
            keep = np.exp(lse - new_lse)
            o = o * keep + np.exp(s - new_lse) @ v[ks:ke]
            lse = new_lse
        out[qs:qe] = o
    return out
