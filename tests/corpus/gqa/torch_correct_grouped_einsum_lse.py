# attnprep: gqa
# expect: pass
# style: torch.einsum on a grouped (B, T, kv, g, hd) query view, weights as exp(s - torch.logsumexp(s)), computed in float64 explicitly
import torch


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_kv_heads <= 0 or n_heads % n_kv_heads:
        raise ValueError(f"{n_heads} query heads cannot be split over {n_kv_heads} KV heads")
    x = x.to(torch.float64)
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    q = torch.matmul(x, W_q.double()).reshape(B, T, n_kv_heads, g, hd)
    k = torch.matmul(x, W_k.double()).reshape(B, T, n_kv_heads, hd)
    v = torch.matmul(x, W_v.double()).reshape(B, T, n_kv_heads, hd)

    s = torch.einsum("bikgd,bjkd->bkgij", q, k) * hd ** -0.5
    i = torch.arange(T).unsqueeze(1)
    j = torch.arange(T).unsqueeze(0)
    s = torch.where(j <= i, s, torch.tensor(float("-inf"), dtype=s.dtype))
    w = torch.exp(s - torch.logsumexp(s, dim=-1, keepdim=True))
    o = torch.einsum("bkgij,bjkd->bikgd", w, v).reshape(B, T, n_heads * hd)
    return o @ W_o.double()
