# attnprep: window
# expect: pass
# style: PyTorch, the window as tril(ones, -window) | triu(ones, 1), masked_fill, F.softmax
import math

import torch
import torch.nn.functional as F


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    ones = torch.ones(T, T, dtype=torch.bool)
    return torch.triu(ones, diagonal=1) | torch.tril(ones, diagonal=-window)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    w = F.softmax((q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(mask, float("-inf")), dim=-1)
    return w @ v, w
