# attnprep: decode
# expect: fail stable
# must-pass: cache-shape first-step cache-content input-unchanged
# mistake: shifts the scores by their minimum instead of their maximum before exp ("make them all >= 0"), so
#          exp overflows as soon as one cached key scores about 709 above the lowest (found by mutation testing:
#          max made min in the reference)
# diagnosis: shift-by-min
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    x_t = np.asarray(x_t, dtype=np.float64)
    B, d_model = x_t.shape
    hd = d_model // n_heads

    def heads(a):
        return a.reshape(B, n_heads, 1, hd)

    q, k, v = heads(x_t @ W_q), heads(x_t @ W_k), heads(x_t @ W_v)
    if cache is not None:
        k = np.concatenate([cache[0], k], axis=2)
        v = np.concatenate([cache[1], v], axis=2)

    s = np.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(hd)
    s = s - s.min(axis=-1, keepdims=True)  # non-negative scores
    p = np.exp(s)
    p = p / p.sum(axis=-1, keepdims=True)
    y = np.einsum("bhqk,bhkd->bhqd", p, v).reshape(B, d_model) @ W_o
    return y, (k, v)
