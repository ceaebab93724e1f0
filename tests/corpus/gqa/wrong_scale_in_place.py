# attnprep: gqa
# expect: fail input-unchanged
# diagnosis: scale-folded-in-place
# mistake: folds 1/sqrt(hd) into W_q in place, so the caller's W_q shrinks on every call
# must-pass: stable scale
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    W_q /= np.sqrt(hd)
    q = (x @ W_q).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    k = np.repeat((x @ W_k).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3), g, axis=1)
    v = np.repeat((x @ W_v).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3), g, axis=1)
    s = q @ k.transpose(0, 1, 3, 2)
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    out = (w @ v).transpose(0, 2, 1, 3).reshape(B, T, n_heads * hd)
    return out @ W_o
