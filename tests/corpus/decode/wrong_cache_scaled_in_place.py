# attnprep: decode
# expect: fail input-unchanged cache-content matches-full
# must-pass: stable
# mistake: folds 1/sqrt(d_head) into the cached keys with *=, writing into the caller's cache
# diagnosis: cached-keys-prescaled
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    scale = 1.0 / np.sqrt(d_head)
    q = (x_t @ W_q).reshape(B, n_heads, 1, d_head)
    k = (x_t @ W_k).reshape(B, n_heads, 1, d_head) * scale
    v = (x_t @ W_v).reshape(B, n_heads, 1, d_head)
    if cache is None:
        K, V = k, v
    else:
        K_old, V_old = cache
        K_old *= scale  # keep the keys pre-scaled so the scores need no division
        K = np.concatenate([K_old, k], axis=2)
        V = np.concatenate([V_old, v], axis=2)
    s = q @ K.swapaxes(-1, -2)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    return (w @ V).reshape(B, d_model) @ W_o, (K, V)
