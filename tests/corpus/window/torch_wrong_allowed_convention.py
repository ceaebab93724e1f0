# attnprep: window
# expect: fail mask row-counts equals-causal
# mistake: PyTorch, returns the allowed positions (True = may attend), the opposite of the convention
# diagnosis: mask-allowed-convention
# must-pass: stable scale
import math

import torch


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    return (j <= i) & (i - j < window)


def window_attention(q, k, v, window):
    allowed = sliding_window_mask(q.shape[0], window)
    s = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(~allowed, float("-inf"))
    w = torch.softmax(s, dim=-1)
    return w @ v, w
