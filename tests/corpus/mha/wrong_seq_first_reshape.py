# attnprep: mha
# expect: fail batch-independent prefix
# mistake: flattens B and T together, then reads the rows back as (T, B, ...) (PyTorch's sequence-first habit), mixing batches
# diagnosis: batch-mixed-by-reshape
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
    dh = D // n_heads
    rows = x.reshape(B * T, D)
    # (T, B, H, dh) -> (B, H, T, dh)
    q, k, v = ((rows @ W).reshape(T, B, n_heads, dh).transpose(1, 2, 0, 3) for W in (W_q, W_k, W_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(dh)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    out = (weights @ v).transpose(2, 0, 1, 3).reshape(B * T, D)
    return (out @ W_o).reshape(B, T, D), weights
