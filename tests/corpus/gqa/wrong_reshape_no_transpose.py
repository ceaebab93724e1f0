# attnprep: gqa
# expect: fail equals-mha prefix matches-reference
# mistake: reshapes (B, T, H*hd) straight to (B, H, T, hd) without the transpose, mixing tokens across heads
# diagnosis: split-without-transpose
# must-pass: stable group-mapping mqa
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    q = (x @ W_q).reshape(B, n_heads, T, hd)
    k = np.repeat((x @ W_k).reshape(B, n_kv_heads, T, hd), g, axis=1)
    v = np.repeat((x @ W_v).reshape(B, n_kv_heads, T, hd), g, axis=1)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    out = (w @ v).reshape(B, T, n_heads * hd)
    return out @ W_o
