# attnprep: window torch
# expect: pass
# style: PyTorch, triu | tril bool mask, masked_fill(-inf), torch.softmax, everything in float32 and a float32 result (the first probes are the mask builder's, whose results are bool)
import math
import torch

def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    ones = torch.ones(T, T, dtype=torch.bool)
    return torch.triu(ones, diagonal=1) | torch.tril(ones, diagonal=-window)

def window_attention(q, k, v, window):
    q, k, v = q.float(), k.float(), v.float()
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    s = s.masked_fill(sliding_window_mask(q.shape[0], window), float("-inf"))
    w = torch.softmax(s, dim=-1)
    return w @ v, w
