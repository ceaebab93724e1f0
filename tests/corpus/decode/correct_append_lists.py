# attnprep: decode
# expect: pass
# style: np.append onto an empty (B, H, 0, d_head) cache, np.dot per (b, h); y returned as a list, the cache as a list
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads, **_):
    B, d_model = np.shape(x_t)
    d_head = d_model // n_heads
    if cache is None:
        empty = np.zeros((B, n_heads, 0, d_head))
        cache = (empty, empty)
    K_old, V_old = cache
    new_k = np.dot(x_t, W_k).reshape(B, n_heads, 1, d_head)
    new_v = np.dot(x_t, W_v).reshape(B, n_heads, 1, d_head)
    K = np.append(K_old, new_k, axis=2)
    V = np.append(V_old, new_v, axis=2)
    q = np.dot(x_t, W_q).reshape(B, n_heads, d_head)
    heads = np.zeros((B, n_heads, d_head))
    for b in range(B):
        for h in range(n_heads):
            s = np.dot(K[b, h], q[b, h]) / np.sqrt(d_head)      # (t+1,)
            w = np.exp(s - np.max(s))
            heads[b, h] = np.dot(w / np.sum(w), V[b, h])
    y = np.dot(heads.reshape(B, d_model), W_o)
    return y.tolist(), [K, V]
