# attnprep: window
# expect: fail mask row-counts blocked-zero window-one
# mistake: PyTorch, tril(ones, -window - 1): keeps window + 1 keys per row
# diagnosis: window-off-by-one
# must-pass: stable scale
import math

import torch


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    ones = torch.ones(T, T, dtype=torch.bool)
    return torch.triu(ones, diagonal=1) | torch.tril(ones, diagonal=-window - 1)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    w = torch.softmax((q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(mask, float("-inf")), dim=-1)
    return w @ v, w
