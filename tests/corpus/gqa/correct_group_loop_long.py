# attnprep: gqa
# expect: pass
# style: np.repeat of the KV heads for short sequences; from 512 positions on one KV group at a time through broadcasting (no copies of k and v), scores shifted by each row's own maximum
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_kv_heads <= 0 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a positive multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    q = (x @ W_q).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    k = (x @ W_k).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3)
    v = (x @ W_v).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3)
    future = np.triu(np.ones((T, T), dtype=bool), 1)

    def attend(qh, kh, vh):
        s = np.where(future, -np.inf, qh @ np.swapaxes(kh, -1, -2) / np.sqrt(hd))
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)) @ vh

    if T < 512:
        out = attend(q, np.repeat(k, g, axis=1), np.repeat(v, g, axis=1))
    else:
        out = np.empty_like(q)
        for j in range(n_kv_heads):
            group = slice(j * g, (j + 1) * g)
            out[:, group] = attend(q[:, group], k[:, j:j + 1], v[:, j:j + 1])
    return out.transpose(0, 2, 1, 3).reshape(B, T, n_heads * hd) @ W_o
