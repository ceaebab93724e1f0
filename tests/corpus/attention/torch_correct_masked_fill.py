# attnprep: attention
# expect: pass
# style: PyTorch, k.transpose(-2, -1), masked_fill with a broadcast bool mask, F.softmax(dim=-1)
import math

import torch.nn.functional as F


def attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    return F.softmax(scores, dim=-1) @ v
