# attnprep: decode
# expect: fail matches-full
# mistake: PyTorch, scales the scores by sqrt(d_model) instead of sqrt(d_head)
# diagnosis: scale-by-d-model
# must-pass: stable
import math

import torch


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, C = x_t.shape
    hd = C // n_heads
    q, k, v = ((x_t @ W).view(B, n_heads, 1, hd) for W in (W_q, W_k, W_v))
    if cache is not None:
        k = torch.cat([cache[0], k], dim=2)
        v = torch.cat([cache[1], v], dim=2)
    att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(C), dim=-1)
    return (att @ v).reshape(B, C) @ W_o, (k, v)
