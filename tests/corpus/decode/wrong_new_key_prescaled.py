# attnprep: decode
# expect: fail cache-content matches-full matches-reference
# must-pass: cache-shape stable
# mistake: each new key enters the cache already divided by sqrt(d_head), and the scores are left unscaled
# diagnosis: cached-keys-prescaled
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    dh = d_model // n_heads
    q = (x_t @ W_q).reshape(B, n_heads, 1, dh)
    # pre-scale keys once when they enter the cache, so old keys never need rescaling
    k = (x_t @ W_k).reshape(B, n_heads, 1, dh) / np.sqrt(dh)
    v = (x_t @ W_v).reshape(B, n_heads, 1, dh)
    if cache is None:
        K, V = k, v
    else:
        K = np.concatenate([cache[0], k], axis=2)
        V = np.concatenate([cache[1], v], axis=2)
    s = q @ K.transpose(0, 1, 3, 2)
    s = s - s.max(-1, keepdims=True)
    w = np.exp(s)
    w /= w.sum(-1, keepdims=True)
    y = (w @ V).reshape(B, d_model) @ W_o
    return y, (K, V)
