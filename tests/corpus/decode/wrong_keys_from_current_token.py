# attnprep: decode
# expect: fail cache-content matches-full
# must-pass: stable
# mistake: recomputes the whole cache from x_t alone, so every position holds the current token
# diagnosis: cache-rebuilt-from-current-token
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    t = 0 if cache is None else cache[0].shape[2]
    q = (x_t @ W_q).reshape(B, n_heads, 1, d_head)
    # "re-project all the keys": but only x_t is at hand here
    K = np.repeat((x_t @ W_k).reshape(B, n_heads, 1, d_head), t + 1, axis=2)
    V = np.repeat((x_t @ W_v).reshape(B, n_heads, 1, d_head), t + 1, axis=2)
    s = q @ K.swapaxes(-1, -2) / np.sqrt(d_head)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    return (w @ V).reshape(B, d_model) @ W_o, (K, V)
