# attnprep: block
# expect: fail prefix
# mistake: heads merged with o.reshape(B, T, D) straight from (B, H, T, d_head), skipping the transpose back; exact for n_heads == 1, scrambles positions and heads for n_heads >= 2
# diagnosis: merge-without-transpose
import numpy as np

EPS = 1e-6


def rms_norm(x, weight, eps=EPS):
    return x / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps) * weight


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    dh = D // n_heads
    q = (x @ W_q).reshape(B, T, n_heads, dh).transpose(0, 2, 1, 3)
    k = (x @ W_k).reshape(B, T, n_heads, dh).transpose(0, 2, 1, 3)
    v = (x @ W_v).reshape(B, T, n_heads, dh).transpose(0, 2, 1, 3)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(dh)
    s = np.where(np.tril(np.ones((T, T), dtype=bool)), s, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    o = (w @ v).reshape(B, T, D)  # merge heads
    return o @ W_o


def swiglu(x, W_gate, W_up, W_down):
    g = x @ W_gate
    return (g / (1.0 + np.exp(-g)) * (x @ W_up)) @ W_down


def transformer_block(x, params, n_heads):
    p = params
    h = x + causal_mha(rms_norm(x, p["attn_norm"]), p["W_q"], p["W_k"], p["W_v"], p["W_o"], n_heads)
    return h + swiglu(rms_norm(h, p["ffn_norm"]), p["W_gate"], p["W_up"], p["W_down"])

