# attnprep: gqa
# expect: pass
# style: scores as x (W_q_h W_k_j^T) x^T, values projected after the weights, per-head W_o slices summed; -1e30 mask
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads:
        raise ValueError("incompatible head counts")
    B, T, d_model = x.shape
    hd = W_q.shape[1] // n_heads
    ratio = n_heads // n_kv_heads
    mask = np.triu(np.full((T, T), -1e30), k=1)
    y = np.zeros((B, T, W_o.shape[1]))
    for h in range(n_heads):
        j = h * n_kv_heads // n_heads          # the same as h // ratio
        assert j == h // ratio
        Wq_h = W_q[:, h * hd:(h + 1) * hd]
        Wk_j = W_k[:, j * hd:(j + 1) * hd]
        Wv_j = W_v[:, j * hd:(j + 1) * hd]
        Wo_h = W_o[h * hd:(h + 1) * hd]
        bilinear = np.dot(Wq_h, Wk_j.T) / np.sqrt(hd)   # (d_model, d_model)
        for b in range(B):
            s = np.dot(np.dot(x[b], bilinear), x[b].T) + mask
            s = s - s.max(axis=1)[:, None]
            p = np.exp(s)
            p = p / p.sum(axis=1)[:, None]
            # (p x) W_v W_o == p (x W_v) W_o: every head adds its own share of y
            y[b] += np.dot(np.dot(np.dot(p, x[b]), Wv_j), Wo_h)
    return y
