# attnprep: decode
# expect: pass
# style: PyTorch, view into heads, torch.cat along dim=2, F.softmax, transpose + reshape to merge
import math

import torch
import torch.nn.functional as F


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, C = x_t.shape
    hd = C // n_heads
    q = (x_t @ W_q).view(B, n_heads, 1, hd)
    k = (x_t @ W_k).view(B, n_heads, 1, hd)
    v = (x_t @ W_v).view(B, n_heads, 1, hd)
    if cache is not None:
        k = torch.cat([cache[0], k], dim=2)
        v = torch.cat([cache[1], v], dim=2)
    att = F.softmax(q @ k.transpose(-2, -1) / math.sqrt(hd), dim=-1)
    y = (att @ v).transpose(1, 2).reshape(B, C)
    return y @ W_o, (k, v)
