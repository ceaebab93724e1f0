# attnprep: block
# expect: fail prefix shape
# must-pass: stable scale batch-independent gate norm residual
# diagnosis: mask-includes-diagonal
# mistake: masks the diagonal too (np.triu without k=1): position 0 has no key left, 0/0
import numpy as np


def _rms(x, w, eps=1e-6):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def _attn(x, p, n_heads):
    B, T, D = x.shape
    dh = D // n_heads
    q = (x @ p["W_q"]).reshape(B, T, n_heads, dh).transpose(0, 2, 1, 3)
    k = (x @ p["W_k"]).reshape(B, T, n_heads, dh).transpose(0, 2, 1, 3)
    v = (x @ p["W_v"]).reshape(B, T, n_heads, dh).transpose(0, 2, 1, 3)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(dh)
    s = np.where(np.triu(np.ones((T, T), dtype=bool)), -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    o = (w @ v).transpose(0, 2, 1, 3).reshape(B, T, D)
    return o @ p["W_o"]


def _ffn(x, p):
    g = x @ p["W_gate"]
    return (g / (1.0 + np.exp(-g)) * (x @ p["W_up"])) @ p["W_down"]


def transformer_block(x, params, n_heads):
    h = x + _attn(_rms(x, params["attn_norm"]), params, n_heads)
    return h + _ffn(_rms(h, params["ffn_norm"]), params)
