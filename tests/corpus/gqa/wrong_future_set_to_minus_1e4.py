# attnprep: gqa
# expect: fail stable
# must-pass: shape equals-mha mqa group-mapping scale prefix bad-input input-unchanged
# mistake: sets the future's scores to -1e4, a "large negative" that real scores can reach: when the scores of the visible keys are themselves near -1e4, the future gets a share of the weight
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads:
        raise ValueError(f"{n_heads} heads cannot be split into {n_kv_heads} groups")
    B, T, D = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    q = np.einsum("btd,dk->btk", x, W_q).reshape(B, T, n_heads, hd)
    k = np.einsum("btd,dk->btk", x, W_k).reshape(B, T, n_kv_heads, hd)
    v = np.einsum("btd,dk->btk", x, W_v).reshape(B, T, n_kv_heads, hd)
    k, v = np.repeat(k, g, axis=2), np.repeat(v, g, axis=2)
    s = np.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(hd)
    s = np.where(np.tril(np.ones((T, T), dtype=bool)), s, -1e4)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w /= w.sum(axis=-1, keepdims=True)
    y = np.einsum("bhqk,bkhd->bqhd", w, v).reshape(B, T, n_heads * hd)
    return y @ W_o
