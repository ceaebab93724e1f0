# attnprep: block
# expect: fail residual
# must-pass: stable scale gate norm
# mistake: replaces the stream with the attention output: h = attn(...) without + x
# diagnosis: no-attention-residual
import numpy as np


def rms_norm(x, w, eps=1e-6):
    return x / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps) * w


def softmax(s):
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, d = x.shape
    hd = d // n_heads
    q = (x @ W_q).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    k = (x @ W_k).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    v = (x @ W_v).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
    mask = np.triu(np.ones((T, T), dtype=bool), k=1)
    s = np.where(mask, -np.inf, s)
    o = softmax(s) @ v
    return o.transpose(0, 2, 1, 3).reshape(B, T, d) @ W_o


def silu(a):
    return a / (1 + np.exp(-a))


def swiglu(x, W_gate, W_up, W_down):
    return (silu(x @ W_gate) * (x @ W_up)) @ W_down


def transformer_block(x, params, n_heads):
    p = params
    h = causal_mha(rms_norm(x, p["attn_norm"]), p["W_q"], p["W_k"], p["W_v"], p["W_o"], n_heads)
    return h + swiglu(rms_norm(h, p["ffn_norm"]), p["W_gate"], p["W_up"], p["W_down"])
