# attnprep: decode torch
"""Reference solution in PyTorch: one step of decoding with a KV cache."""

import math

import torch


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    q, k, v = ((x_t @ W).view(B, n_heads, 1, d_head) for W in (W_q, W_k, W_v))
    if cache is None:
        K, V = k, v
    else:
        # torch.cat builds new tensors along the position dimension: the caller's cache is left alone.
        K = torch.cat([cache[0], k], dim=2)
        V = torch.cat([cache[1], v], dim=2)
    # The new token is the last position: every cached key is in its past, no mask needed.
    weights = torch.softmax(q @ K.transpose(-2, -1) / math.sqrt(d_head), dim=-1)
    out = (weights @ V).reshape(B, d_model)
    return out @ W_o, (K, V)
