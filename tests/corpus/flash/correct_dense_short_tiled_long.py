# attnprep: flash
# expect: pass
# style: plain dense softmax for short sequences (one tile anyway), a tiled online softmax past 256 positions,
#        written with a log-sum-exp running state instead of a running max and sum
import numpy as np


def _dense(q, k, v, causal):
    s = q @ k.T / np.sqrt(q.shape[1])
    if causal:
        s[np.triu_indices_from(s, 1)] = -np.inf
    s -= s.max(axis=1, keepdims=True)
    w = np.exp(s)
    return (w / w.sum(axis=1, keepdims=True)) @ v


def flash_attention(q, k, v, block_size=64, causal=False):
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    T = q.shape[0]
    if T <= 256:
        return _dense(q, k, v, causal)
    out = np.empty((T, v.shape[1]))
    for qs in range(0, T, block_size):
        qe = min(qs + block_size, T)
        lse = np.full(qe - qs, -np.inf)        # log of the running sum of exp(score)
        acc = np.zeros((qe - qs, v.shape[1]))  # running softmax-weighted values, normalised by exp(lse)
        for ks in range(0, qe if causal else T, block_size):
            ke = min(ks + block_size, qe if causal else T)
            s = q[qs:qe] @ k[ks:ke].T / np.sqrt(q.shape[1])
            if causal:
                s = np.where(np.arange(ks, ke) > np.arange(qs, qe)[:, None], -np.inf, s)
            tile_max = s.max(axis=1)
            tile_lse = tile_max + np.log(np.exp(s - tile_max[:, None]).sum(axis=1))
            new = np.logaddexp(lse, tile_lse)
            acc = acc * np.exp(lse - new)[:, None] + np.exp(s - new[:, None]) @ v[ks:ke]
            lse = new
        out[qs:qe] = acc
    return out
