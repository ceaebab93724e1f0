# attnprep: block
# expect: pass
# style: params unpacked with ** into a keyword-only helper; np.ma masked softmax; per-head W_o slices summed; list out
import numpy as np


def _block(x, n_heads, *, attn_norm, W_q, W_k, W_v, W_o, ffn_norm, W_gate, W_up, W_down, eps=1e-6):
    B, T, D = x.shape
    hd = D // n_heads
    xn = x * (np.mean(np.square(x), axis=-1, keepdims=True) + eps) ** -0.5 * attn_norm
    future = np.broadcast_to(np.triu(np.ones((T, T), bool), 1), (B, T, T))
    attn = np.zeros_like(x, dtype=float)
    for h in range(n_heads):
        cols = slice(h * hd, (h + 1) * hd)
        q, k, v = xn @ W_q[:, cols], xn @ W_k[:, cols], xn @ W_v[:, cols]
        s = np.ma.masked_array(q @ k.transpose(0, 2, 1) / np.sqrt(hd), mask=future)
        e = np.ma.exp(s - s.max(axis=-1, keepdims=True))
        w = (e / e.sum(axis=-1, keepdims=True)).filled(0.0)
        attn += (w @ v) @ W_o[cols, :]         # merge + W_o == the sum of each head's share
    h_ = x + attn
    hn = h_ * (np.mean(np.square(h_), axis=-1, keepdims=True) + eps) ** -0.5 * ffn_norm
    g = hn @ W_gate
    return h_ + (g / (1.0 + np.exp(-g)) * (hn @ W_up)) @ W_down


def transformer_block(x, params, n_heads, **kwargs):
    return _block(np.asarray(x, dtype=float), n_heads, **params).tolist()
