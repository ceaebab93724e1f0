# attnprep: attention
# expect: fail input-unchanged
# mistake: PyTorch, folds the scale into the caller's q with q.div_(...)
# diagnosis: scale-folded-in-place
# must-pass: stable scale
import math

import torch


def attention(q, k, v, mask=None):
    q.div_(math.sqrt(q.shape[-1]))
    scores = q @ k.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
