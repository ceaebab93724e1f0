# attnprep: gqa
# expect: fail stable
# mistake: fills the future of the raw scores with -1e5 before the 1/sqrt(hd) scale; at hd = 128 and scores near
# -1e4 the future leaks
# must-pass: shape mqa group-mapping bad-input
import numpy as np


def _heads(a, n):
    B, T, F = a.shape
    return a.reshape(B, T, n, F // n).transpose(0, 2, 1, 3)


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    T = x.shape[1]
    q = _heads(x @ W_q, n_heads)
    k = np.repeat(_heads(x @ W_k, n_kv_heads), g, axis=1)
    v = np.repeat(_heads(x @ W_v, n_kv_heads), g, axis=1)
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    s = np.where(future, -1e5, q @ np.swapaxes(k, -1, -2)) / np.sqrt(hd)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    o = (e / e.sum(axis=-1, keepdims=True)) @ v
    B, H, _, _ = o.shape
    return o.transpose(0, 2, 1, 3).reshape(B, T, H * hd) @ W_o
