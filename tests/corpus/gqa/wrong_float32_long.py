# attnprep: gqa
# expect: fail matches-reference
# mistake: casts to float32 for long sequences to keep the score tensor small
# must-pass: stable scale prefix equals-mha
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    if T > 300:
        x, W_q, W_k, W_v = (a.astype(np.float32) for a in (x, W_q, W_k, W_v))
    hd = W_q.shape[1] // n_heads
    q = (x @ W_q).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    k = (x @ W_k).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3)
    v = (x @ W_v).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3)
    g = n_heads // n_kv_heads
    k, v = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    e = np.exp(s - s.max(-1, keepdims=True))
    w = e / e.sum(-1, keepdims=True)
    return ((w @ v).transpose(0, 2, 1, 3).reshape(B, T, n_heads * hd) @ W_o).astype(np.float64)
