# attnprep: mha
# expect: fail upper-triangle-zero sum-to-one
# mistake: masks the diagonal too (np.triu with k=0), so position 0 has nothing left to attend to
# diagnosis: mask-includes-diagonal
# must-pass: scale single-head
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    return x.reshape(B, T, n_heads, D // n_heads).transpose(0, 2, 1, 3)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.transpose(0, 2, 1, 3).reshape(B, T, H * dh)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(D // n_heads)
    mask = np.triu(np.ones((T, T), dtype=bool))
    scores = np.where(mask, -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return merge_heads(weights @ v) @ W_o, weights
