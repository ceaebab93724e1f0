# attnprep: gqa
# expect: pass
# style: loops over batch and query heads, index arithmetic h // g, column slices of the projections
import numpy as np


def _softmax_rows(s):
    s = s - s.max(axis=1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=1, keepdims=True)


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_kv_heads <= 0 or n_heads % n_kv_heads:
        raise ValueError(f"{n_heads} query heads cannot be split into {n_kv_heads} groups")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    per_group = n_heads // n_kv_heads
    y = np.zeros((B, T, W_o.shape[1]))
    for b in range(B):
        concat = []
        for h in range(n_heads):
            kv = h // per_group
            qh = x[b] @ W_q[:, h * hd:(h + 1) * hd]
            kh = x[b] @ W_k[:, kv * hd:(kv + 1) * hd]
            vh = x[b] @ W_v[:, kv * hd:(kv + 1) * hd]
            s = qh @ kh.T / np.sqrt(hd)
            for i in range(T):
                s[i, i + 1:] = -np.inf
            concat.append(_softmax_rows(s) @ vh)
        y[b] = np.concatenate(concat, axis=1) @ W_o
    return y
