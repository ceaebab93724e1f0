# attnprep: causal
# expect: fail mask matches-reference prefix upper-triangle-zero
# mistake: PyTorch, uses torch.tril (the allowed positions) as the blocked mask: the past is blocked, the future open
# must-pass: scale
import math

import torch


def causal_mask(T):
    return torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    weights = torch.softmax(scores.masked_fill(causal_mask(T), float("-inf")), dim=-1)
    return weights @ v, weights
