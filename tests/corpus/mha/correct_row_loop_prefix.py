# attnprep: mha
# expect: pass
# style: one query position at a time, attending to keys[:t+1] only (no mask at all), weights written into a zero array
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    if D % n_heads != 0:
        raise ValueError("d_model not divisible by n_heads")
    out = np.empty((B, n_heads, T, D // n_heads), dtype=x.dtype)
    for h in range(n_heads):
        out[:, h] = x[..., h * (D // n_heads):(h + 1) * (D // n_heads)]
    return out


def merge_heads(x):
    B, H, T, dh = x.shape
    out = np.empty((B, T, H * dh), dtype=x.dtype)
    for h in range(H):
        out[..., h * dh:(h + 1) * dh] = x[:, h]
    return out


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    q = split_heads(x @ W_q, n_heads)
    k = split_heads(x @ W_k, n_heads)
    v = split_heads(x @ W_v, n_heads)
    dh = D // n_heads
    weights = np.zeros((B, n_heads, T, T))
    heads = np.zeros_like(q)
    for t in range(T):
        s = np.einsum("bhd,bhsd->bhs", q[:, :, t], k[:, :, :t + 1]) / np.sqrt(dh)
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        p = e / e.sum(axis=-1, keepdims=True)
        weights[:, :, t, :t + 1] = p
        heads[:, :, t] = np.einsum("bhs,bhsd->bhd", p, v[:, :, :t + 1])
    return merge_heads(heads) @ W_o, weights
