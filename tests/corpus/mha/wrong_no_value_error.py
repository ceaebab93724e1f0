# attnprep: mha
# expect: fail bad-input
# diagnosis: drops-features
# mistake: loops over heads with d_head = d_model // n_heads and never checks divisibility, silently dropping features
# must-pass: scale
import numpy as np


def split_heads(x, n_heads):
    d_head = x.shape[-1] // n_heads
    return np.stack([x[..., h * d_head:(h + 1) * d_head] for h in range(n_heads)], axis=1)


def merge_heads(x):
    return np.concatenate([x[:, h] for h in range(x.shape[1])], axis=-1)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    d_head = D // n_heads
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    future = np.triu(np.ones((T, T), dtype=bool), 1)
    y = np.zeros((B, T, D))
    weights = np.zeros((B, n_heads, T, T))
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        s = q[..., cols] @ np.swapaxes(k[..., cols], -1, -2) / np.sqrt(max(d_head, 1))
        s = np.where(future, -np.inf, s)
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        w = e / e.sum(axis=-1, keepdims=True)
        weights[:, h] = w
        y += (w @ v[..., cols]) @ W_o[cols]  # each head's rows of W_o
    return y, weights
