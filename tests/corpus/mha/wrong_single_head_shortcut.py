# attnprep: mha
# expect: fail single-head shape
# diagnosis: single-head-shortcut
# mistake: special-cases n_heads == 1 as plain attention and returns weights without the head axis
# must-pass: scale prefix sum-to-one upper-triangle-zero
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    return x.reshape(B, T, n_heads, D // n_heads).transpose(0, 2, 1, 3)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.transpose(0, 2, 1, 3).reshape(B, T, H * dh)


def _attend(q, k, v):
    T = q.shape[-2]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    if n_heads == 1:  # nothing to split
        out, weights = _attend(x @ W_q, x @ W_k, x @ W_v)
        return out @ W_o, weights
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    out, weights = _attend(q, k, v)
    return merge_heads(out) @ W_o, weights
