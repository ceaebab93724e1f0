# attnprep: decode
# expect: pass
# style: einsum everywhere; the new cache is a preallocated buffer filled slice by slice
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d = x_t.shape
    hd = d // n_heads
    q = np.einsum("bd,de->be", x_t, W_q).reshape(B, n_heads, hd)
    k = np.einsum("bd,de->be", x_t, W_k).reshape(B, n_heads, hd)
    v = np.einsum("bd,de->be", x_t, W_v).reshape(B, n_heads, hd)
    t = 0 if cache is None else cache[0].shape[2]
    K = np.empty((B, n_heads, t + 1, hd))
    V = np.empty((B, n_heads, t + 1, hd))
    if cache is not None:
        K[:, :, :t] = cache[0]
        V[:, :, :t] = cache[1]
    K[:, :, t] = k
    V[:, :, t] = v
    s = np.einsum("bhd,bhtd->bht", q, K) / np.sqrt(hd)
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    o = np.einsum("bht,bhtd->bhd", p, V).reshape(B, d)
    return np.einsum("bd,de->be", o, W_o), (K, V)
