# attnprep: gqa
# expect: pass
# style: loop over KV heads, its query group batched with np.matmul; finfo.min mask; returns a nested list
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, **unused):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    q = (x @ W_q).reshape(B, T, n_heads, hd)
    k = (x @ W_k).reshape(B, T, n_kv_heads, hd)
    v = (x @ W_v).reshape(B, T, n_kv_heads, hd)
    blocked = np.arange(T)[None, :] > np.arange(T)[:, None]
    heads = np.empty((B, T, n_heads, hd))
    for j in range(n_kv_heads):
        qg = q[:, :, j * g:(j + 1) * g].transpose(0, 2, 1, 3)     # (B, g, T, hd)
        kj = k[:, :, j][:, None]                                   # (B, 1, T, hd)
        vj = v[:, :, j][:, None]
        s = np.matmul(qg, kj.transpose(0, 1, 3, 2)) / np.sqrt(hd)  # (B, g, T, T)
        s[..., blocked] = np.finfo(np.float64).min
        s -= s.max(axis=-1, keepdims=True)
        w = np.exp(s)
        w /= w.sum(axis=-1, keepdims=True)
        heads[:, :, j * g:(j + 1) * g] = np.matmul(w, vj).transpose(0, 2, 1, 3)
    return (heads.reshape(B, T, n_heads * hd) @ W_o).tolist()
