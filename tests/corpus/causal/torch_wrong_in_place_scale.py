# attnprep: causal
# expect: fail input-unchanged
# mistake: PyTorch, scales the caller's q in place with q /= sqrt(d_k)
# must-pass: stable scale prefix matches-reference
import math

import torch


def causal_mask(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    q /= math.sqrt(d_k)
    weights = torch.softmax((q @ k.T).masked_fill(causal_mask(T), float("-inf")), dim=-1)
    return weights @ v, weights
