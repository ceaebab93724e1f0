# attnprep: gqa
# expect: pass
# style: queries grouped as (B, H_kv, g, T, hd) and matmul-broadcast against k[:, :, None]; deferred normalisation (exp @ v, then / row sums); returns a list
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    g = n_heads // n_kv_heads
    hd = W_q.shape[1] // n_heads
    q = (x @ W_q).reshape(B, T, n_kv_heads, g, hd).transpose(0, 2, 3, 1, 4)  # (B, H_kv, g, T, hd)
    k = (x @ W_k).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3)[:, :, None]  # (B, H_kv, 1, T, hd)
    v = (x @ W_v).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3)[:, :, None]
    s = np.matmul(q, np.swapaxes(k, -1, -2)) / np.sqrt(hd)
    s[..., np.triu(np.ones((T, T), dtype=bool), 1)] = -np.inf
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    out = np.matmul(e, v) / e.sum(axis=-1, keepdims=True)  # (B, H_kv, g, T, hd)
    out = out.transpose(0, 3, 1, 2, 4).reshape(B, T, n_heads * hd)
    return (out @ W_o).tolist()
