# attnprep: causal torch
"""Reference solution in PyTorch: causal mask and masked single-head attention."""

import math

import torch


def causal_mask(T):
    # True strictly above the diagonal (diagonal=1): the future is blocked, each position sees itself.
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    # Scale by sqrt(d_k), the width of the dot products.
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    # Mask BEFORE the softmax: -inf gives exactly 0 after exp, and the rest renormalise.
    scores = scores.masked_fill(causal_mask(T), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
