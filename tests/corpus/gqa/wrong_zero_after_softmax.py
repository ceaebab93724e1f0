# attnprep: gqa
# expect: fail prefix equals-mha
# diagnosis: mask-after-softmax
# mistake: softmax over all keys, then zeroes the future weights with a tril multiply without renormalising
# must-pass: stable scale group-mapping mqa
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    q = (x @ W_q).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    k = np.repeat((x @ W_k).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3), g, axis=1)
    v = np.repeat((x @ W_v).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3), g, axis=1)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    w = w * np.tril(np.ones((T, T)))
    out = (w @ v).transpose(0, 2, 1, 3).reshape(B, T, n_heads * hd)
    return out @ W_o

