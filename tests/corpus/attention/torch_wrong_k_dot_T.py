# attnprep: attention
# expect: fail batch-dims
# mistake: PyTorch, k.T on batched tensors: reverses every dimension, not the last two
# must-pass: scale
import math

import torch


def attention(q, k, v, mask=None):
    kt = k.permute(*reversed(range(k.dim())))  # what k.T does (deprecated on tensors of more than 2 dims)
    scores = q @ kt / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
