# attnprep: gqa
# expect: fail bad-input
# mistake: validation only rejects n_kv_heads > n_heads; a non-divisible pair like 6 query / 4 KV heads is not caught and fails later with a RuntimeError instead of ValueError
import math
import torch


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_kv_heads > n_heads:
        raise ValueError("cannot have more KV heads than query heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads

    q = (x @ W_q).view(B, T, n_heads, hd).transpose(1, 2)
    k = (x @ W_k).view(B, T, n_kv_heads, hd).transpose(1, 2)
    v = (x @ W_v).view(B, T, n_kv_heads, hd).transpose(1, 2)
    # (B, kv, T, hd) -> (B, kv, g, T, hd) -> (B, H, T, hd): consecutive groups
    k = k[:, :, None].expand(B, n_kv_heads, g, T, hd).reshape(B, n_kv_heads * g, T, hd)
    v = v[:, :, None].expand(B, n_kv_heads, g, T, hd).reshape(B, n_kv_heads * g, T, hd)

    scores = q @ k.transpose(-2, -1) / math.sqrt(hd)
    keep = torch.ones(T, T, dtype=torch.bool).tril()
    scores = scores.masked_fill(~keep, float("-inf"))
    attn = torch.softmax(scores, dim=-1)
    out = (attn @ v).transpose(1, 2).reshape(B, T, n_heads * hd)
    return out @ W_o
