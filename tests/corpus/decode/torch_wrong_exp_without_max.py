# attnprep: decode
# expect: fail stable
# mistake: a softmax of exp(s) / sum(exp(s)) with no maximum subtracted: scores past about 709 overflow to inf and nan
# diagnosis: no-max-subtraction
# not-diagnosis: weights-scaled-in-place
import math

import torch


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    q = (x_t @ W_q).reshape(B, n_heads, 1, d_head)
    k = (x_t @ W_k).reshape(B, n_heads, 1, d_head)
    v = (x_t @ W_v).reshape(B, n_heads, 1, d_head)
    if cache is None:
        K, V = k, v
    else:
        K = torch.cat([cache[0], k], dim=2)
        V = torch.cat([cache[1], v], dim=2)
    scores = q @ K.transpose(-1, -2) / math.sqrt(d_head)  # (B, H, 1, t+1)
    e = torch.exp(scores)
    w = e / e.sum(dim=-1, keepdim=True)
    out = (w @ V).reshape(B, d_model)
    return out @ W_o, (K, V)
