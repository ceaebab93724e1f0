# attnprep: causal
# expect: fail upper-triangle-zero
# mistake: PyTorch, masked_fill with -1e4 instead of -inf: masked weights are tiny, not zero
# diagnosis: mask-fill-too-small
# must-pass: stable scale
import math

import torch


def causal_mask(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    weights = torch.softmax(scores.masked_fill(causal_mask(T), -1e4), dim=-1)
    return weights @ v, weights
