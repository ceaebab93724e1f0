# attnprep: gqa
# expect: pass
# style: PyTorch, view + transpose, repeat_interleave of the KV heads along dim=1, masked_fill, F.softmax
import math

import torch
import torch.nn.functional as F


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    q = (x @ W_q).view(B, T, n_heads, hd).transpose(1, 2)
    k = (x @ W_k).view(B, T, n_kv_heads, hd).transpose(1, 2)
    v = (x @ W_v).view(B, T, n_kv_heads, hd).transpose(1, 2)
    k = k.repeat_interleave(n_heads // n_kv_heads, dim=1)
    v = v.repeat_interleave(n_heads // n_kv_heads, dim=1)
    att = q @ k.transpose(-2, -1) / math.sqrt(hd)
    att = att.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1), float("-inf"))
    out = F.softmax(att, dim=-1) @ v
    return out.transpose(1, 2).contiguous().view(B, T, n_heads * hd) @ W_o
