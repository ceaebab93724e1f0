# attnprep: gqa
# expect: pass
# style: per sequence 2-D np.dot, one query position at a time over keys[:t+1] (no mask needed), KV head chosen by h // g inside the loop
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be divisible by n_kv_heads")
    B, T, D = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    y = np.zeros((B, T, W_o.shape[1]))
    for b in range(B):
        Q, K, V = np.dot(x[b], W_q), np.dot(x[b], W_k), np.dot(x[b], W_v)
        heads = np.zeros((T, n_heads * hd))
        for h in range(n_heads):
            j = h // g
            qh = Q[:, h * hd:(h + 1) * hd]
            kh = K[:, j * hd:(j + 1) * hd]
            vh = V[:, j * hd:(j + 1) * hd]
            for t in range(T):
                s = np.dot(kh[:t + 1], qh[t]) / np.sqrt(hd)
                p = np.exp(s - s.max())
                heads[t, h * hd:(h + 1) * hd] = np.dot(p / p.sum(), vh[:t + 1])
        y[b] = np.dot(heads, W_o)
    return y
