# attnprep: gqa
# expect: pass
# style: the projection matrices reshaped to (d_model, heads, hd) and einsum'd straight into head-major arrays; KV heads expanded by np.broadcast_to; W_o reshaped to (H, hd, d_model)
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, *, causal=True):
    n_heads, n_kv_heads = int(n_heads), int(n_kv_heads)
    if n_kv_heads <= 0 or n_heads % n_kv_heads != 0:
        raise ValueError("bad head counts")
    d_model = x.shape[-1]
    hd = W_k.shape[1] // n_kv_heads
    g = n_heads // n_kv_heads
    q = np.einsum("btd,dhe->bhte", x, W_q.reshape(d_model, n_heads, hd))
    k = np.einsum("btd,dhe->bhte", x, W_k.reshape(d_model, n_kv_heads, hd))
    v = np.einsum("btd,dhe->bhte", x, W_v.reshape(d_model, n_kv_heads, hd))
    B, _, T, _ = k.shape
    k = np.broadcast_to(k[:, :, None], (B, n_kv_heads, g, T, hd)).reshape(B, n_heads, T, hd)
    v = np.broadcast_to(v[:, :, None], (B, n_kv_heads, g, T, hd)).reshape(B, n_heads, T, hd)
    s = np.einsum("bhie,bhje->bhij", q, k) * hd ** -0.5
    if causal:
        s = s + np.triu(np.full((T, T), -np.inf), 1)
    s -= s.max(-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(-1, keepdims=True)
    o = np.einsum("bhij,bhje->bhie", p, v)
    return np.einsum("bhte,hed->btd", o, W_o.reshape(n_heads, hd, d_model))
