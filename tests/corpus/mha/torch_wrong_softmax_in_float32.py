# attnprep: mha
# expect: fail matches-reference
# must-pass: shape sum-to-one upper-triangle-zero prefix scale
# mistake: the softmax is taken in float32 (the mixed-precision habit) and cast back to float64
# diagnosis: softmax-in-float32
import math

import torch


def split_heads(x, n_heads):
    B, T, d_model = x.shape
    return x.unflatten(-1, (n_heads, d_model // n_heads)).transpose(1, 2)


def merge_heads(x):
    return x.transpose(1, 2).flatten(-2)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, d_model = x.shape
    if d_model % n_heads != 0:
        raise ValueError("n_heads must divide d_model")
    d_head = d_model // n_heads
    q = split_heads(x @ W_q, n_heads)
    k = split_heads(x @ W_k, n_heads)
    v = split_heads(x @ W_v, n_heads)
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(d_head)
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    scores = scores.masked_fill(mask, float("-inf"))
    # softmax in fp32 like the mixed-precision training code does
    weights = torch.softmax(scores.float(), dim=-1).to(x.dtype)
    y = merge_heads(weights @ v) @ W_o
    return y, weights
