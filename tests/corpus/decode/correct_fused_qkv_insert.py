# attnprep: decode
# expect: pass
# style: one fused x_t @ [W_q | W_k | W_v] split with np.split, np.insert to grow the cache, heads merged through transpose + reshape, keyword call friendly
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads, *, eps=None):
    B, D = np.shape(x_t)
    hd = D // n_heads
    qkv = np.asarray(x_t) @ np.concatenate([W_q, W_k, W_v], axis=1)
    q, k, v = (a.reshape(B, n_heads, hd) for a in np.split(qkv, 3, axis=1))
    if cache is None:
        K = k[:, :, None, :]
        V = v[:, :, None, :]
    else:
        t = cache[0].shape[2]
        K = np.insert(cache[0], t, k, axis=2)
        V = np.insert(cache[1], t, v, axis=2)
    s = np.einsum("bhd,bhtd->bht", q, K) / np.sqrt(hd)
    s -= s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w /= w.sum(axis=-1, keepdims=True)
    o = np.einsum("bht,bhtd->bhd", w, V)
    y = o.transpose(0, 1, 2).reshape(B, D) @ W_o
    return y, (K, V)
