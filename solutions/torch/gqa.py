# attnprep: gqa torch
"""Reference solution in PyTorch: causal grouped-query attention."""

import math

import torch


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError(f"n_heads={n_heads} is not a multiple of n_kv_heads={n_kv_heads}")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    group = n_heads // n_kv_heads
    q = (x @ W_q).view(B, T, n_heads, hd).transpose(1, 2)     # (B, H, T, hd)
    k = (x @ W_k).view(B, T, n_kv_heads, hd).transpose(1, 2)  # (B, H_kv, T, hd)
    v = (x @ W_v).view(B, T, n_kv_heads, hd).transpose(1, 2)
    # Query head h reads KV head h // group: repeat_interleave repeats each KV head `group` times in a
    # row (repeat would cycle through them instead).
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(hd)
    future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    out = (weights @ v).transpose(1, 2).reshape(B, T, n_heads * hd)
    return out @ W_o
