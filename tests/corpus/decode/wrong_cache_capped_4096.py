# attnprep: decode
# expect: fail matches-reference
# must-pass: cache-shape first-step cache-content matches-full batch-independent stable input-unchanged
# mistake: keeps at most 4,096 positions, dropping the oldest (a serving engine's sliding cache): wrong once a
#          sequence passes 4,096 tokens
import numpy as np

MAX_CACHE = 4096


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d = x_t.shape
    hd = d // n_heads
    q = (x_t @ W_q).reshape(B, n_heads, 1, hd)
    k = (x_t @ W_k).reshape(B, n_heads, 1, hd)
    v = (x_t @ W_v).reshape(B, n_heads, 1, hd)
    if cache is None:
        K, V = k, v
    else:
        K = np.concatenate([cache[0], k], axis=2)[:, :, -MAX_CACHE:]
        V = np.concatenate([cache[1], v], axis=2)[:, :, -MAX_CACHE:]
    s = q @ K.swapaxes(-1, -2) / np.sqrt(hd)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    return (w @ V).reshape(B, d) @ W_o, (K, V)
