# attnprep: decode
# expect: pass
# style: float32 arithmetic with float32 results: judged at float32 precision (the same code
#        returning float64 would be wrong, as float64 results are held to float64)
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    x_t, W_q, W_k, W_v, W_o = (np.asarray(a, dtype=np.float32) for a in (x_t, W_q, W_k, W_v, W_o))
    d_head = d_model // n_heads
    q = (x_t @ W_q).reshape(B, n_heads, 1, d_head)
    k = (x_t @ W_k).reshape(B, n_heads, 1, d_head)
    v = (x_t @ W_v).reshape(B, n_heads, 1, d_head)
    if cache is None:
        K, V = k, v
    else:
        K = np.concatenate([cache[0], k], axis=2)
        V = np.concatenate([cache[1], v], axis=2)
    s = q @ K.swapaxes(-1, -2) / np.sqrt(d_head)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    out = (w @ V).reshape(B, d_model)
    return out @ W_o, (K, V)
