# attnprep: attention torch
"""Reference solution in PyTorch: batched scaled dot-product attention with an optional mask."""

import math

import torch


def attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    # transpose(-2, -1) swaps only the last two dimensions; k.T would reverse the batch ones too.
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., T_q, T_k)
    if mask is not None:
        # True = blocked; masked_fill broadcasts the mask against the scores.
        scores = scores.masked_fill(torch.as_tensor(mask, dtype=torch.bool), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v  # (..., T_q, d_v)
