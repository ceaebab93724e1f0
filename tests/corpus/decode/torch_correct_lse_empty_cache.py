# attnprep: decode
# expect: pass
# style: torch with new cache built by torch.empty + slice copies, einsum scores and exp(s - torch.logsumexp(s)), explicit float64
import torch


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    dh = d_model // n_heads
    t = 0 if cache is None else cache[0].shape[2]
    x = x_t.to(torch.float64)

    q = (x @ W_q).reshape(B, n_heads, dh)
    k = (x @ W_k).reshape(B, n_heads, dh)
    v = (x @ W_v).reshape(B, n_heads, dh)

    K_new = torch.empty(B, n_heads, t + 1, dh, dtype=torch.float64)
    V_new = torch.empty(B, n_heads, t + 1, dh, dtype=torch.float64)
    if t > 0:
        K_new[:, :, :t] = cache[0]
        V_new[:, :, :t] = cache[1]
    K_new[:, :, t] = k
    V_new[:, :, t] = v

    s = torch.einsum("bhd,bhtd->bht", q, K_new) / dh ** 0.5
    w = torch.exp(s - torch.logsumexp(s, dim=-1, keepdim=True))
    o = torch.einsum("bht,bhtd->bhd", w, V_new).reshape(B, d_model)
    return o @ W_o, (K_new, V_new)
