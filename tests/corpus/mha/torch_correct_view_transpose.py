# attnprep: mha
# expect: pass
# style: PyTorch, view + transpose(1, 2) to split, transpose + contiguous().view to merge, masked_fill, F.softmax
import math

import torch
import torch.nn.functional as F


def split_heads(x, n_heads):
    B, T, C = x.shape
    if C % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    return x.view(B, T, n_heads, C // n_heads).transpose(1, 2)


def merge_heads(x):
    B, H, T, D = x.shape
    return x.transpose(1, 2).contiguous().view(B, T, H * D)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, C = x.shape
    if C % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    q, k, v = split_heads(x @ W_q, n_heads), split_heads(x @ W_k, n_heads), split_heads(x @ W_v, n_heads)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
    att = att.masked_fill(~mask, float("-inf"))
    att = F.softmax(att, dim=-1)
    return merge_heads(att @ v) @ W_o, att
