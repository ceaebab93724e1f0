# attnprep: mha
# expect: fail matches-reference
# mistake: computes the (B, H, T, T) scores in float32 once T is large, to save memory
# must-pass: scale prefix single-head sum-to-one
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    return x.reshape(B, T, n_heads, D // n_heads).transpose(0, 2, 1, 3)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.transpose(0, 2, 1, 3).reshape(B, T, H * dh)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    if T >= 512:
        q, k, v = q.astype(np.float32), k.astype(np.float32), v.astype(np.float32)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(D // n_heads)
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    e = np.exp(s - s.max(-1, keepdims=True))
    w = (e / e.sum(-1, keepdims=True)).astype(np.float64)
    return merge_heads(w @ v) @ W_o, w
