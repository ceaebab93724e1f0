# attnprep: attention
# expect: fail mask
# mistake: PyTorch, zeroes the blocked weights after the softmax with masked_fill(mask, 0) and never renormalises
# diagnosis: mask-after-softmax
# must-pass: stable scale cross-attention
import math

import torch


def attention(q, k, v, mask=None):
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    if mask is not None:
        weights = weights.masked_fill(mask, 0.0)
    return weights @ v
