# attnprep: gqa
# expect: fail bad-input
# diagnosis: no-group-check
# mistake: never checks that n_heads is a multiple of n_kv_heads, so bad head counts fail by accident or not at all
# must-pass: stable scale
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    B, T, d_model = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    heads = np.zeros((B, T, n_heads * hd))
    blocked = np.triu(np.ones((T, T), dtype=bool), 1)
    for b in range(B):
        for h in range(n_heads):
            j = h // g
            qh = q[b, :, h * hd:(h + 1) * hd]
            kh = k[b, :, j * hd:(j + 1) * hd]
            vh = v[b, :, j * hd:(j + 1) * hd]
            s = np.where(blocked, -np.inf, qh @ kh.T / np.sqrt(hd))
            w = np.exp(s - s.max(axis=1, keepdims=True))
            heads[b, :, h * hd:(h + 1) * hd] = (w / w.sum(axis=1, keepdims=True)) @ vh
    return heads @ W_o
