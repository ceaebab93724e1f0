# attnprep: block
# expect: fail input-unchanged
# mistake: folds the norm weights into the projections with mul_ on the tensors of params, so the caller's weights change and a second call is wrong
# not-diagnosis: residual-added-in-place
import math

import torch

EPS = 1e-6


def rms_norm(x, weight, eps=EPS):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * weight


def _unit_rms(x, eps=EPS):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    dh = D // n_heads
    q = (x @ W_q).view(B, T, n_heads, dh).transpose(1, 2)
    k = (x @ W_k).view(B, T, n_heads, dh).transpose(1, 2)
    v = (x @ W_v).view(B, T, n_heads, dh).transpose(1, 2)
    s = (q @ k.transpose(-1, -2)) / math.sqrt(dh)
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
    s = s.masked_fill(~mask, float("-inf"))
    s = s - s.max(dim=-1, keepdim=True).values
    w = torch.exp(s)
    w = w / w.sum(dim=-1, keepdim=True)
    return (w @ v).transpose(1, 2).reshape(B, T, D) @ W_o


def swiglu(x, W_gate, W_up, W_down):
    g = x @ W_gate
    return (g * torch.sigmoid(g) * (x @ W_up)) @ W_down


def transformer_block(x, params, n_heads):
    # rms_norm(x, w) @ W == unit_rms(x) @ (w[:, None] * W): fold the norm weights once
    a_w = params["attn_norm"][:, None]
    f_w = params["ffn_norm"][:, None]
    W_q, W_k, W_v = params["W_q"], params["W_k"], params["W_v"]
    W_gate, W_up = params["W_gate"], params["W_up"]
    for W in (W_q, W_k, W_v):
        W.mul_(a_w)
    for W in (W_gate, W_up):
        W.mul_(f_w)
    h = x + causal_mha(_unit_rms(x), W_q, W_k, W_v, params["W_o"], n_heads)
    return h + swiglu(_unit_rms(h), W_gate, W_up, params["W_down"])
