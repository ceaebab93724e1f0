# attnprep: gqa
# expect: pass
# style: KV heads gathered with fancy indexing arange(H) // g, logsumexp softmax, tril mask
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads:
        raise ValueError("bad head counts")
    B, T, D = x.shape
    hd = W_q.shape[1] // n_heads
    q = np.swapaxes((x @ W_q).reshape(B, T, n_heads, hd), 1, 2)
    k = np.swapaxes((x @ W_k).reshape(B, T, n_kv_heads, hd), 1, 2)
    v = np.swapaxes((x @ W_v).reshape(B, T, n_kv_heads, hd), 1, 2)
    idx = np.arange(n_heads) // (n_heads // n_kv_heads)
    k, v = k[:, idx], v[:, idx]
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * hd ** -0.5
    allowed = np.tril(np.ones((T, T), dtype=bool))
    s = np.where(allowed, s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    lse = m + np.log(np.exp(s - m).sum(axis=-1, keepdims=True))
    o = np.exp(s - lse) @ v
    return np.swapaxes(o, 1, 2).reshape(B, T, -1) @ W_o
