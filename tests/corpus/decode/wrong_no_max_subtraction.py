# attnprep: decode
# expect: fail stable
# must-pass: batch-independent
# mistake: never subtracts the row maximum before np.exp: scores near +1e4 overflow, near -1e4 give 0/0
# diagnosis: no-max-subtraction
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
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
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    out = (w @ V).reshape(B, d_model)
    return out @ W_o, (K, V)
