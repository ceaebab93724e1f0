# attnprep: gqa
# expect: fail equals-mha stable matches-reference
# must-pass: shape mqa group-mapping scale prefix bad-input
# mistake: the softmax runs in float32 and is cast back (softmax(scores.float()).type_as(scores), the Llama habit)
# diagnosis: softmax-in-float32
import torch
import torch.nn.functional as F


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_kv_heads <= 0 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    q = (x @ W_q).view(B, T, n_heads, hd).transpose(1, 2)
    k = (x @ W_k).view(B, T, n_kv_heads, hd).transpose(1, 2)
    v = (x @ W_v).view(B, T, n_kv_heads, hd).transpose(1, 2)
    k = k.repeat_interleave(n_heads // n_kv_heads, dim=1)
    v = v.repeat_interleave(n_heads // n_kv_heads, dim=1)
    scores = q @ k.transpose(-2, -1) / hd ** 0.5
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)
    scores = scores.masked_fill(causal, float("-inf"))
    w = F.softmax(scores.float(), dim=-1).type_as(scores)  # as the Llama reference code does
    return (w @ v).transpose(1, 2).reshape(B, T, n_heads * hd) @ W_o
