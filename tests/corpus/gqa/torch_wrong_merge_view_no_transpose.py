# attnprep: gqa
# expect: fail equals-mha prefix matches-reference
# mistake: PyTorch, merges the heads with reshape(B, T, -1) straight from (B, H, T, hd), without transposing back
# diagnosis: merge-without-transpose
# must-pass: stable scale group-mapping mqa
import math

import torch


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    q = (x @ W_q).view(B, T, n_heads, hd).transpose(1, 2)
    k = (x @ W_k).view(B, T, n_kv_heads, hd).transpose(1, 2).repeat_interleave(g, dim=1)
    v = (x @ W_v).view(B, T, n_kv_heads, hd).transpose(1, 2).repeat_interleave(g, dim=1)
    att = q @ k.transpose(-2, -1) / math.sqrt(hd)
    att = att.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
    out = torch.softmax(att, dim=-1) @ v
    return out.reshape(B, T, n_heads * hd) @ W_o
