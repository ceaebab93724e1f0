# attnprep: gqa
# expect: fail equals-mha matches-reference scale
# mistake: scale taken as q.size(-1) ** -0.5 before the heads are split, i.e. 1/sqrt(n_heads*hd) instead of 1/sqrt(hd); right only for n_heads == 1
import torch


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads

    q = x @ W_q
    k = x @ W_k
    v = x @ W_v
    scale = q.size(-1) ** -0.5

    q = q.view(B, T, n_heads, hd).transpose(1, 2)
    k = k.view(B, T, n_kv_heads, hd).transpose(1, 2).repeat_interleave(g, dim=1)
    v = v.view(B, T, n_kv_heads, hd).transpose(1, 2).repeat_interleave(g, dim=1)

    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    scores = scores.masked_fill(mask, float("-inf"))
    attn = scores.softmax(dim=-1)
    out = torch.matmul(attn, v).transpose(1, 2).reshape(B, T, n_heads * hd)
    return out @ W_o
