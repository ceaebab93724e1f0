# attnprep: decode
# expect: fail input-unchanged
# mistake: x_t.unsqueeze_(1) is the in-place variant: it reshapes the caller's x_t to (B, 1, d_model) behind its back (values unchanged, the input tensor is still modified)
import math
import torch


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    x = x_t.unsqueeze_(1)                                   # (B, 1, d_model): a length-1 sequence

    q = (x @ W_q).view(B, 1, n_heads, d_head).transpose(1, 2)
    k = (x @ W_k).view(B, 1, n_heads, d_head).transpose(1, 2)
    v = (x @ W_v).view(B, 1, n_heads, d_head).transpose(1, 2)

    if cache is not None:
        k = torch.cat([cache[0], k], dim=2)
        v = torch.cat([cache[1], v], dim=2)

    att = (q @ k.transpose(-2, -1)) / math.sqrt(d_head)
    att = torch.softmax(att, dim=-1)
    y = (att @ v).transpose(1, 2).reshape(B, d_model)
    return y @ W_o, (k, v)
