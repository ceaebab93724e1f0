# attnprep: decode
# expect: pass
# style: cache taken apart with tuple unpacking into K_old, V_old; integer-safe np.asarray(float) on the weights; weights through exp(s - logsumexp) with np.logaddexp.reduce; np.dot on 2-D
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    x_t = np.asarray(x_t, dtype=float)
    W_q, W_k, W_v, W_o = (np.asarray(W, dtype=float) for W in (W_q, W_k, W_v, W_o))
    B, D = x_t.shape
    H, hd = n_heads, D // n_heads
    q = np.dot(x_t, W_q).reshape(B, H, 1, hd) / np.sqrt(hd)
    k = np.dot(x_t, W_k).reshape(B, H, 1, hd)
    v = np.dot(x_t, W_v).reshape(B, H, 1, hd)
    if cache is not None:
        K_old, V_old = cache
        k = np.concatenate((K_old, k), axis=-2)
        v = np.concatenate((V_old, v), axis=-2)
    s = q @ np.swapaxes(k, 2, 3)
    w = np.exp(s - np.logaddexp.reduce(s, axis=-1, keepdims=True))
    y = np.dot((w @ v).reshape(B, D), W_o)
    return y, (k, v)
