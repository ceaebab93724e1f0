# attnprep: gqa
# expect: fail mqa shape matches-reference
# diagnosis: mqa-squeeze
# mistake: for multi-query attention (one KV head) squeezes the head axis away and relies on broadcasting, which also squeezes a batch of one and misaligns the batch axis
# must-pass: scale prefix stable group-mapping bad-input input-unchanged
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    q = (x @ W_q).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    k = (x @ W_k).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3)
    v = (x @ W_v).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3)
    if n_kv_heads == 1:
        k, v = np.squeeze(k), np.squeeze(v)  # one shared head: let broadcasting do the sharing
    else:
        k = np.repeat(k, n_heads // n_kv_heads, axis=1)
        v = np.repeat(v, n_heads // n_kv_heads, axis=1)
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(hd)
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return (w @ v).transpose(0, 2, 1, 3).reshape(B, T, n_heads * hd) @ W_o
