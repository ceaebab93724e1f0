# attnprep: flash
# expect: pass
# style: two passes over the key tiles of each query tile (row max and sum first, then the values); no rescaling
import numpy as np


def _tiles(T, b):
    return [(s, min(s + b, T)) for s in range(0, T, b)]


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    out = np.zeros((T, v.shape[1]))
    scale = d ** -0.5
    for qs, qe in _tiles(T, block_size):
        key_tiles = [(ks, ke) for ks, ke in _tiles(T, block_size) if not (causal and ks >= qe)]

        def scores(ks, ke):
            s = np.dot(q[qs:qe], k[ks:ke].T) * scale
            if causal:
                s = np.where(np.arange(ks, ke) > np.arange(qs, qe)[:, None], -np.inf, s)
            return s

        m = np.max([scores(ks, ke).max(axis=1) for ks, ke in key_tiles], axis=0)   # pass 1: row maxima
        total = sum(np.exp(scores(ks, ke) - m[:, None]).sum(axis=1) for ks, ke in key_tiles)
        for ks, ke in key_tiles:                                                      # pass 2: the outputs
            out[qs:qe] += np.exp(scores(ks, ke) - m[:, None]) @ v[ks:ke]
        out[qs:qe] /= total[:, None]
    return out
