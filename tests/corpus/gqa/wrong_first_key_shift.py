# attnprep: gqa
# expect: fail stable
# mistake: softmax "stabilised" by subtracting the score of key 0 (always visible under the causal mask) instead of the row max; overflows to inf/nan once a later score exceeds the first by ~709
# diagnosis: shift-by-first-key
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads

    q = (x @ W_q).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    k = (x @ W_k).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3)
    v = (x @ W_v).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3)
    k = np.repeat(k, g, axis=1)
    v = np.repeat(v, g, axis=1)

    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
    # key 0 is visible from every row, so it is a safe reference point
    s = s - s[..., :1]
    e = np.exp(s) * np.tril(np.ones((T, T)))
    w = e / e.sum(axis=-1, keepdims=True)
    o = (w @ v).transpose(0, 2, 1, 3).reshape(B, T, n_heads * hd)
    return o @ W_o
