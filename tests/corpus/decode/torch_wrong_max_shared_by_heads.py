# attnprep: decode
# expect: fail matches-reference stable
# mistake: softmax hand-written and shifted by amax over dims (1, -1), one max per sequence shared by all heads, instead of per head row; a head whose scores sit ~745 below another head's underflows to 0/0 = nan
# diagnosis: max-shared-by-heads
import math
import torch


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads

    q = (x_t @ W_q).view(B, n_heads, 1, d_head)
    k = (x_t @ W_k).view(B, n_heads, 1, d_head)
    v = (x_t @ W_v).view(B, n_heads, 1, d_head)
    if cache is None:
        K_new, V_new = k, v
    else:
        K_new = torch.cat((cache[0], k), dim=2)
        V_new = torch.cat((cache[1], v), dim=2)

    s = (q @ K_new.transpose(-2, -1)) / math.sqrt(d_head)          # (B, H, 1, t+1)
    # per-sequence shift: sequences in a batch can live at very different scales
    s = s - s.amax(dim=(1, -1), keepdim=True)
    e = torch.exp(s)
    w = e / e.sum(dim=-1, keepdim=True)
    y_t = (w @ V_new).reshape(B, d_model) @ W_o
    return y_t, (K_new, V_new)
