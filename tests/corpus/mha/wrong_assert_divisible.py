# attnprep: mha
# expect: fail bad-input
# diagnosis: assert-divisible
# mistake: checks divisibility with assert, which raises AssertionError (and vanishes under python -O), not ValueError
# must-pass: scale
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    assert D % n_heads == 0, "n_heads must divide d_model"
    d_head = D // n_heads
    return x.reshape(B, T, n_heads, d_head).transpose(0, 2, 1, 3)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.transpose(0, 2, 1, 3).reshape(B, T, H * dh)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    assert D % n_heads == 0, "n_heads must divide d_model"
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(D // n_heads)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return merge_heads(weights @ v) @ W_o, weights
