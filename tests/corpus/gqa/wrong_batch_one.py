# attnprep: gqa
# expect: fail shape matches-reference
# diagnosis: batch-of-one
# mistake: written for a single sequence: works on x[0] and returns a batch of one
# must-pass: stable scale equals-mha group-mapping mqa prefix
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    seq = x[0]  # (T, d_model)
    T = seq.shape[0]
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    q = (seq @ W_q).reshape(T, n_heads, hd).transpose(1, 0, 2)
    k = np.repeat((seq @ W_k).reshape(T, n_kv_heads, hd).transpose(1, 0, 2), g, axis=0)
    v = np.repeat((seq @ W_v).reshape(T, n_kv_heads, hd).transpose(1, 0, 2), g, axis=0)
    s = q @ k.transpose(0, 2, 1) / np.sqrt(hd)
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    out = (w @ v).transpose(1, 0, 2).reshape(T, n_heads * hd)
    return (out @ W_o)[None]
