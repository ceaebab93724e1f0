# attnprep: mha
# expect: fail input-unchanged
# mistake: PyTorch, folds the scale into the caller's W_q in place (W_q /= sqrt(d_head))
# must-pass: scale
import math

import torch


def split_heads(x, n_heads):
    B, T, C = x.shape
    if C % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    return x.view(B, T, n_heads, C // n_heads).transpose(1, 2)


def merge_heads(x):
    B, H, T, D = x.shape
    return x.transpose(1, 2).reshape(B, T, H * D)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, C = x.shape
    if C % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    W_q /= math.sqrt(C // n_heads)
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    att = torch.softmax((q @ k.transpose(-2, -1)).masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1),
                                                              float("-inf")), dim=-1)
    return merge_heads(att @ v) @ W_o, att
