# attnprep: mha
# expect: fail matches-reference
# diagnosis: shift-by-diagonal
# mistake: shifts each row of scores by its diagonal entry (never masked) instead of the row's maximum
# must-pass: scale prefix single-head sum-to-one upper-triangle-zero
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
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(D // n_heads)
    diag = np.diagonal(s, axis1=-2, axis2=-1)[..., None]
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s - diag)
    e = np.exp(s)
    w = e / e.sum(-1, keepdims=True)
    return merge_heads(w @ v) @ W_o, w
