# attnprep: causal
# expect: pass
# style: PyTorch, torch.triu mask, masked_fill with -inf, F.softmax(dim=-1)
import math

import torch
import torch.nn.functional as F


def causal_mask(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    scores = scores.masked_fill(causal_mask(T), float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ v, weights
