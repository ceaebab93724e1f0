# attnprep: gqa
# expect: fail group-mapping mqa equals-mha matches-reference
# diagnosis: kv-head-by-n-kv
# mistake: query head h reads KV head h // n_kv_heads (divides by the number of KV heads instead of the group size n_heads // n_kv_heads)
# must-pass: scale prefix stable bad-input input-unchanged
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    q = (x @ W_q).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    k = (x @ W_k).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3)
    v = (x @ W_v).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3)
    heads = []
    for h in range(n_heads):
        j = h // n_kv_heads
        s = q[:, h] @ k[:, j].transpose(0, 2, 1) / np.sqrt(hd)
        s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
        w = np.exp(s - s.max(axis=-1, keepdims=True))
        heads.append(w / w.sum(axis=-1, keepdims=True) @ v[:, j])
    return np.concatenate(heads, axis=-1) @ W_o
