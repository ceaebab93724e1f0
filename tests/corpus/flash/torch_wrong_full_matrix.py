# attnprep: flash
# expect: fail memory
# mistake: PyTorch, forms the whole (T, T) score matrix with F.softmax: right values, no tiling
# must-pass: stable scale
import math

import torch
import torch.nn.functional as F


def flash_attention(q, k, v, block_size=64, causal=False):
    T = q.shape[0]
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        s = s.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
    return F.softmax(s, dim=-1) @ v
