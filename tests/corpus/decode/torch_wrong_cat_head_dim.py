# attnprep: decode
# expect: fail cache-shape
# mistake: PyTorch, torch.cat along dim=1 (the heads) instead of dim=2 (the positions)
# diagnosis: cache-grows-wrong-axis
# must-pass: stable
import math

import torch


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, C = x_t.shape
    hd = C // n_heads
    q, k, v = ((x_t @ W).view(B, n_heads, 1, hd) for W in (W_q, W_k, W_v))
    if cache is not None:
        k = torch.cat([cache[0], k], dim=1)
        v = torch.cat([cache[1], v], dim=1)
    att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(hd), dim=-1)
    return (att @ v).reshape(B, C) @ W_o, (k, v)
