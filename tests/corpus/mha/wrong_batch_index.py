# attnprep: mha
# expect: fail batch-independent shape
# mistake: works on x[0] only (written for one sequence), so every batch element after the first is dropped
# diagnosis: batch-of-one
# must-pass: scale prefix single-head sum-to-one upper-triangle-zero
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
    seq = x[0]
    T, D = seq.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    dh = D // n_heads
    q, k, v = ((seq @ W).reshape(T, n_heads, dh).transpose(1, 0, 2) for W in (W_q, W_k, W_v))
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(dh)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    out = (weights @ v).transpose(1, 0, 2).reshape(T, D)
    return (out @ W_o)[None], weights[None]
