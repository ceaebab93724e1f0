# attnprep: block
# expect: fail input-unchanged
# mistake: PyTorch, caches the scaled query weights in the caller's params dict
# must-pass: shape residual norm gate scale prefix stable batch-independent
import math

import torch
import torch.nn.functional as F


def rms_norm(x, weight, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def transformer_block(x, params, n_heads):
    p = params
    B, T, C = x.shape
    hd = C // n_heads
    if "W_q_scaled" not in p:
        p["W_q_scaled"] = p["W_q"] / math.sqrt(hd)
    a = rms_norm(x, p["attn_norm"])
    q, k, v = ((a @ W).view(B, T, n_heads, hd).transpose(1, 2) for W in (p["W_q_scaled"], p["W_k"], p["W_v"]))
    att = (q @ k.transpose(-2, -1)).masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
    h = x + (F.softmax(att, dim=-1) @ v).transpose(1, 2).reshape(B, T, C) @ p["W_o"]
    g = rms_norm(h, p["ffn_norm"])
    return h + (F.silu(g @ p["W_gate"]) * (g @ p["W_up"])) @ p["W_down"]
