# attnprep: block
# expect: pass
# style: PyTorch, helpers in the nanoGPT style (view/transpose heads, masked_fill, F.silu), rsqrt RMSNorm
import math

import torch
import torch.nn.functional as F


def rms_norm(x, weight, eps=1e-6):
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, C = x.shape
    q, k, v = ((x @ W).view(B, T, n_heads, C // n_heads).transpose(1, 2) for W in (W_q, W_k, W_v))
    att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
    att = att.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
    y = F.softmax(att, dim=-1) @ v
    return y.transpose(1, 2).contiguous().view(B, T, C) @ W_o


def transformer_block(x, params, n_heads):
    h = x + causal_mha(rms_norm(x, params["attn_norm"]), params["W_q"], params["W_k"], params["W_v"],
                       params["W_o"], n_heads)
    g = rms_norm(h, params["ffn_norm"])
    return h + (F.silu(g @ params["W_gate"]) * (g @ params["W_up"])) @ params["W_down"]
