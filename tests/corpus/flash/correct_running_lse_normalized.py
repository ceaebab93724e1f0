# attnprep: flash
# expect: pass
# style: correct, different exact bookkeeping: keeps a running log-sum-exp (np.logaddexp) and an already-normalized output per query tile, rescaled by exp(lse_old - lse_new) at each key tile
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    bs = int(block_size)
    out = np.zeros((T, v.shape[1]))
    for i0 in range(0, T, bs):
        i1 = min(T, i0 + bs)
        qi = q[i0:i1]
        lse = np.full((i1 - i0, 1), -np.inf)
        o = np.zeros((i1 - i0, v.shape[1]))
        last = i1 if causal else T
        for j0 in range(0, last, bs):
            j1 = min(T, j0 + bs)
            s = (qi @ k[j0:j1].T) / np.sqrt(d)
            if causal:
                s[np.arange(j0, j1)[None, :] > np.arange(i0, i1)[:, None]] = -np.inf
            tile_max = s.max(axis=1, keepdims=True)
            tile_lse = tile_max + np.log(np.exp(s - tile_max).sum(axis=1, keepdims=True))
            new_lse = np.logaddexp(lse, tile_lse)
            o = o * np.exp(lse - new_lse) + np.exp(s - new_lse) @ v[j0:j1]
            lse = new_lse
        out[i0:i1] = o
    return out
