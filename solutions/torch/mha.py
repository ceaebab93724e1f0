# attnprep: mha torch
"""Reference solution in PyTorch: multi-head split, merge and causal multi-head attention."""

import math

import torch


def split_heads(x, n_heads):
    B, T, d_model = x.shape
    if d_model % n_heads != 0:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
    # (B, T, H, d_head), then swap T and H: each head becomes its own sequence.
    return x.view(B, T, n_heads, d_model // n_heads).transpose(1, 2)


def merge_heads(x):
    B, H, T, d_head = x.shape
    # Swap back first; the transposed tensor is not contiguous, so reshape (not view) glues the heads.
    return x.transpose(1, 2).reshape(B, T, H * d_head)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, d_model = x.shape
    if d_model % n_heads != 0:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
    d_head = d_model // n_heads
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))  # (B, H, T, d_head)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)  # (B, H, T, T)
    future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    y = merge_heads(weights @ v) @ W_o
    return y, weights
