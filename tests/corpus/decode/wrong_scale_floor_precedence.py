# attnprep: decode
# expect: fail matches-full matches-reference
# must-pass: cache-shape first-step cache-content batch-independent stable input-unchanged
# mistake: writes the scale as d_model // n_heads ** 0.5, which Python reads as d_model // sqrt(n_heads) (a floor division), not sqrt(d_head)
# diagnosis: scale-precedence
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    hd = d_model // n_heads
    scale = d_model // n_heads ** 0.5
    q = (x_t @ W_q).reshape(B, n_heads, 1, hd)
    k = (x_t @ W_k).reshape(B, n_heads, 1, hd)
    v = (x_t @ W_v).reshape(B, n_heads, 1, hd)
    K = k if cache is None else np.concatenate([cache[0], k], axis=2)
    V = v if cache is None else np.concatenate([cache[1], v], axis=2)
    s = q @ K.swapaxes(-1, -2) / scale
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return (w @ V).reshape(B, d_model) @ W_o, (K, V)
