# attnprep: mha
# expect: pass
# style: plain Python loops over batch, head and positions with math.exp; only the future is skipped
import math

import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    dh = D // n_heads
    out = np.zeros((B, n_heads, T, dh))
    for b in range(B):
        for h in range(n_heads):
            for t in range(T):
                out[b, h, t] = x[b, t, h * dh:(h + 1) * dh]
    return out


def merge_heads(x):
    B, H, T, dh = x.shape
    out = np.zeros((B, T, H * dh))
    for b in range(B):
        for h in range(H):
            for t in range(T):
                out[b, t, h * dh:(h + 1) * dh] = x[b, h, t]
    return out


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    q = split_heads(x @ W_q, n_heads)
    k = split_heads(x @ W_k, n_heads)
    v = split_heads(x @ W_v, n_heads)
    dh = D // n_heads
    weights = np.zeros((B, n_heads, T, T))
    out = np.zeros_like(q)
    for b in range(B):
        for h in range(n_heads):
            for i in range(T):
                s = [float(np.dot(q[b, h, i], k[b, h, j])) / math.sqrt(dh) for j in range(i + 1)]
                m = max(s)
                e = [math.exp(v_ - m) for v_ in s]
                total = sum(e)
                for j in range(i + 1):
                    weights[b, h, i, j] = e[j] / total
                    out[b, h, i] += weights[b, h, i, j] * v[b, h, j]
    return merge_heads(out) @ W_o, weights
