# attnprep: gqa
# expect: pass
# style: no copies of K/V: queries reshaped to (B, H_kv, g, T, hd) and einsum; -1e9 mask
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads != 0:
        raise ValueError("n_heads % n_kv_heads != 0")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    q = (x @ W_q).reshape(B, T, n_kv_heads, g, hd)
    k = (x @ W_k).reshape(B, T, n_kv_heads, hd)
    v = (x @ W_v).reshape(B, T, n_kv_heads, hd)
    s = np.einsum("btkgd,bskd->bkgts", q, k) / np.sqrt(hd)
    s = s + np.triu(np.full((T, T), -1e9), 1)
    s = s - s.max(-1, keepdims=True)
    p = np.exp(s)
    p = p / p.sum(-1, keepdims=True)
    o = np.einsum("bkgts,bskd->btkgd", p, v).reshape(B, T, n_heads * hd)
    return o @ W_o
