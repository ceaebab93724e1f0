# attnprep: block torch
"""Reference solution in PyTorch: one pre-norm transformer block (RMSNorm, causal MHA, SwiGLU)."""

import math

import torch
import torch.nn.functional as F

EPS = 1e-6


def rms_norm(x, weight, eps=EPS):
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, d_model = x.shape
    d_head = d_model // n_heads
    q, k, v = ((x @ W).view(B, T, n_heads, d_head).transpose(1, 2) for W in (W_q, W_k, W_v))
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    out = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1) @ v
    return out.transpose(1, 2).reshape(B, T, d_model) @ W_o


def swiglu(x, W_gate, W_up, W_down):
    return (F.silu(x @ W_gate) * (x @ W_up)) @ W_down


def transformer_block(x, params, n_heads):
    p = params
    h = x + causal_mha(rms_norm(x, p["attn_norm"]), p["W_q"], p["W_k"], p["W_v"], p["W_o"], n_heads)
    return h + swiglu(rms_norm(h, p["ffn_norm"]), p["W_gate"], p["W_up"], p["W_down"])
