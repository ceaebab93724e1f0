# attnprep: gqa
# expect: pass
# style: PyTorch, queries grouped as (B, H_kv, group, T, hd) against unexpanded KV heads (broadcast), einsum
import torch


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    q = (x @ W_q).reshape(B, T, n_kv_heads, g, hd).permute(0, 2, 3, 1, 4)  # (B, Hkv, g, T, hd)
    k = (x @ W_k).reshape(B, T, n_kv_heads, hd).permute(0, 2, 1, 3)[:, :, None]  # (B, Hkv, 1, T, hd)
    v = (x @ W_v).reshape(B, T, n_kv_heads, hd).permute(0, 2, 1, 3)[:, :, None]
    s = torch.einsum("bngtd,bnosd->bngts", q, k) / hd ** 0.5
    s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    out = torch.softmax(s, dim=-1) @ v  # (B, Hkv, g, T, hd)
    return out.permute(0, 3, 1, 2, 4).reshape(B, T, n_heads * hd) @ W_o
