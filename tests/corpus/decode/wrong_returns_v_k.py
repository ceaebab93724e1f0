# attnprep: decode
# expect: fail cache-content matches-full matches-reference
# must-pass: cache-shape first-step batch-independent input-unchanged
# mistake: returns the new cache as (V, K) instead of (K, V), so the next step reads values as keys
# diagnosis: cache-returned-v-k
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, D = x_t.shape
    hd = D // n_heads
    q = (x_t @ W_q).reshape(B, n_heads, 1, hd)
    k = (x_t @ W_k).reshape(B, n_heads, 1, hd)
    v = (x_t @ W_v).reshape(B, n_heads, 1, hd)
    K = k if cache is None else np.concatenate([cache[0], k], axis=2)
    V = v if cache is None else np.concatenate([cache[1], v], axis=2)
    s = q @ K.swapaxes(-1, -2) / np.sqrt(hd)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return (w @ V).reshape(B, D) @ W_o, (V, K)
