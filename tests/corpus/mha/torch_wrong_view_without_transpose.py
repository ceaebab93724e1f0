# attnprep: mha
# expect: fail split-layout merge-layout matches-reference
# mistake: PyTorch, views (B, T, d_model) straight as (B, H, T, d_head): no transpose, heads get the wrong features
import math

import torch


def split_heads(x, n_heads):
    B, T, C = x.shape
    if C % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    return x.reshape(B, n_heads, T, C // n_heads)


def merge_heads(x):
    B, H, T, D = x.shape
    return x.reshape(B, T, H * D)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    T = x.shape[1]
    if x.shape[-1] % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    att = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    att = torch.softmax(att.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf")), dim=-1)
    return merge_heads(att @ v) @ W_o, att
