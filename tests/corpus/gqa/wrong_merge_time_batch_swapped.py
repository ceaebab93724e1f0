# attnprep: gqa
# expect: fail equals-mha matches-reference prefix
# mistake: heads merged with o.transpose(2, 0, 1, 3).reshape(B, T, -1), i.e. (T, B, H, hd) read as (B, T, ...); only correct when B == 1
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads

    q = (x @ W_q).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)   # (B, H, T, hd)
    k = (x @ W_k).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3)
    v = (x @ W_v).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3)
    k = np.repeat(k, g, axis=1)
    v = np.repeat(v, g, axis=1)

    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
    s = np.where(np.tril(np.ones((T, T), dtype=bool)), s, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    o = w @ v                                                        # (B, H, T, hd)
    # bring time to the front of the head axis, then flatten heads
    o = o.transpose(2, 0, 1, 3).reshape(B, T, n_heads * hd)
    return o @ W_o
