# attnprep: gqa
# expect: fail mqa matches-reference
# diagnosis: repeat-weight-columns
# mistake: expands W_k and W_v with np.repeat(W, g, axis=1), repeating single columns instead of whole hd-wide KV heads
# must-pass: equals-mha scale prefix stable bad-input shape input-unchanged
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    W_k = np.repeat(W_k, g, axis=1)  # now (d_model, n_heads * hd), like W_q
    W_v = np.repeat(W_v, g, axis=1)
    q, k, v = ((x @ W).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3) for W in (W_q, W_k, W_v))
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return (w @ v).transpose(0, 2, 1, 3).reshape(B, T, n_heads * hd) @ W_o
