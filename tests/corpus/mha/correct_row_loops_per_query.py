# attnprep: mha
# expect: pass
# style: correct: explicit Python loops over batch, head and query row, slicing features by hand; per-row stable softmax over keys 0..i only
import math

import numpy as np


def split_heads(x, n_heads):
    B, T, d_model = x.shape
    d_head = d_model // n_heads
    out = np.empty((B, n_heads, T, d_head), dtype=x.dtype)
    for b in range(B):
        for h in range(n_heads):
            for t in range(T):
                out[b, h, t, :] = x[b, t, h * d_head:(h + 1) * d_head]
    return out


def merge_heads(x):
    B, H, T, d_head = x.shape
    out = np.empty((B, T, H * d_head), dtype=x.dtype)
    for b in range(B):
        for h in range(H):
            for t in range(T):
                out[b, t, h * d_head:(h + 1) * d_head] = x[b, h, t, :]
    return out


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, d_model = x.shape
    if n_heads <= 0 or d_model % n_heads != 0:
        raise ValueError("d_model must be a multiple of n_heads")
    d_head = d_model // n_heads
    q = split_heads(x @ W_q, n_heads)
    k = split_heads(x @ W_k, n_heads)
    v = split_heads(x @ W_v, n_heads)
    weights = np.zeros((B, n_heads, T, T))
    heads = np.zeros((B, n_heads, T, d_head))
    scale = math.sqrt(d_head)
    for b in range(B):
        for h in range(n_heads):
            for i in range(T):
                s = k[b, h, :i + 1] @ q[b, h, i] / scale   # keys 0..i
                s = s - s.max()
                e = np.exp(s)
                w = e / e.sum()
                weights[b, h, i, :i + 1] = w
                heads[b, h, i] = w @ v[b, h, :i + 1]
    y = merge_heads(heads) @ W_o
    return y, weights
