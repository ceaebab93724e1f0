# attnprep: block
# expect: fail residual
# mistake: PyTorch, post-norm: normalises after adding each branch, not before it
# diagnosis: post-norm
# must-pass: stable gate norm scale
import math

import torch
import torch.nn.functional as F


def rms_norm(x, weight, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, C = x.shape
    q, k, v = ((x @ W).view(B, T, n_heads, C // n_heads).transpose(1, 2) for W in (W_q, W_k, W_v))
    att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
    att = att.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
    return (F.softmax(att, dim=-1) @ v).transpose(1, 2).reshape(B, T, C) @ W_o


def transformer_block(x, params, n_heads):
    p = params
    h = rms_norm(x + causal_mha(x, p["W_q"], p["W_k"], p["W_v"], p["W_o"], n_heads), p["attn_norm"])
    return rms_norm(h + (F.silu(h @ p["W_gate"]) * (h @ p["W_up"])) @ p["W_down"], p["ffn_norm"])
