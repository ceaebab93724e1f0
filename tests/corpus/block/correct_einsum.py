# attnprep: block
# expect: pass
# style: einsum for every contraction, a -1e9 additive mask, tanh-based sigmoid
import numpy as np


def transformer_block(x, params, n_heads):
    B, T, d = x.shape
    hd = d // n_heads
    eps = 1e-6

    def norm(z, w):
        return z * (1.0 / np.sqrt(np.einsum("btd,btd->bt", z, z)[..., None] / d + eps)) * w

    xn = norm(x, params["attn_norm"])
    q = np.einsum("btd,de->bte", xn, params["W_q"]).reshape(B, T, n_heads, hd)
    k = np.einsum("btd,de->bte", xn, params["W_k"]).reshape(B, T, n_heads, hd)
    v = np.einsum("btd,de->bte", xn, params["W_v"]).reshape(B, T, n_heads, hd)
    s = np.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(hd)
    s = s + np.triu(np.full((T, T), -1e9), k=1)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    o = np.einsum("bhqk,bkhd->bqhd", w, v).reshape(B, T, d)
    h = x + np.einsum("btd,de->bte", o, params["W_o"])

    hn = norm(h, params["ffn_norm"])
    g = np.einsum("btd,df->btf", hn, params["W_gate"])
    u = np.einsum("btd,df->btf", hn, params["W_up"])
    silu = g * 0.5 * (1.0 + np.tanh(0.5 * g))
    return h + np.einsum("btf,fd->btd", silu * u, params["W_down"])
