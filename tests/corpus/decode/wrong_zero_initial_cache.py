# attnprep: decode
# expect: fail first-step cache-shape matches-full
# must-pass: stable
# mistake: starts from a cache holding one zero position instead of an empty one
# diagnosis: zero-initial-cache
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    if cache is None:
        cache = (np.zeros((B, n_heads, 1, d_head)), np.zeros((B, n_heads, 1, d_head)))
    q = (x_t @ W_q).reshape(B, n_heads, 1, d_head)
    k = (x_t @ W_k).reshape(B, n_heads, 1, d_head)
    v = (x_t @ W_v).reshape(B, n_heads, 1, d_head)
    K = np.concatenate([cache[0], k], axis=2)
    V = np.concatenate([cache[1], v], axis=2)
    s = q @ K.swapaxes(-1, -2) / np.sqrt(d_head)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    return (w @ V).reshape(B, d_model) @ W_o, (K, V)
