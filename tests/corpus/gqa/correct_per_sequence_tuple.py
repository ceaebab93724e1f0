# attnprep: gqa
# expect: pass
# style: a helper for one (T, d_model) sequence; returns a tuple of the B per-sequence outputs (an array-like y)
import numpy as np


def _one_sequence(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    T = x.shape[0]
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    q = (x @ W_q).reshape(T, n_heads, hd).swapaxes(0, 1)            # (H, T, hd)
    k = (x @ W_k).reshape(T, n_kv_heads, hd).swapaxes(0, 1)[np.arange(n_heads) // g]
    v = (x @ W_v).reshape(T, n_kv_heads, hd).swapaxes(0, 1)[np.arange(n_heads) // g]
    s = q @ k.swapaxes(1, 2) / np.sqrt(hd)
    s[:, ~np.tri(T, dtype=bool)] = -np.inf
    s -= s.max(axis=2, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=2, keepdims=True)
    return (s @ v).swapaxes(0, 1).reshape(T, -1) @ W_o


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    return tuple(_one_sequence(seq, W_q, W_k, W_v, W_o, n_heads, n_kv_heads) for seq in x)
