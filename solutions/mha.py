# attnprep: mha
"""Reference solution: multi-head split, merge and causal multi-head attention."""

import numpy as np


def split_heads(x, n_heads):
    x = np.asarray(x)
    B, T, d_model = x.shape
    if d_model % n_heads != 0:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
    d_head = d_model // n_heads
    # First cut each position's features into n_heads slices: (B, T, H, d_head).
    # Then swap T and H, so that every head becomes its own (T, d_head) sequence.
    # Reshaping straight to (B, H, T, d_head) would be wrong: it regroups memory
    # order and hands head 0 the first features of several positions.
    return x.reshape(B, T, n_heads, d_head).transpose(0, 2, 1, 3)


def merge_heads(x):
    x = np.asarray(x)
    B, H, T, d_head = x.shape
    # Undo split_heads step by step, in reverse: swap back to (B, T, H, d_head)
    # first, so that the reshape glues together the heads of one position.
    return x.transpose(0, 2, 1, 3).reshape(B, T, H * d_head)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    x = np.asarray(x, dtype=np.float64)
    B, T, d_model = x.shape
    if d_model % n_heads != 0:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
    d_head = d_model // n_heads

    q = split_heads(x @ W_q, n_heads)  # (B, H, T, d_head)
    k = split_heads(x @ W_k, n_heads)
    v = split_heads(x @ W_v, n_heads)

    # Swap only the last two axes: k.T would reverse all four.
    # Each head sees d_head features, so its dot products are scaled by sqrt(d_head).
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)  # (B, H, T, T)

    # The mask depends on T (query and key positions), never on d_head; True strictly
    # above the diagonal: a position sees itself and the past.
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    scores = np.where(future, -np.inf, scores)

    # Softmax over the keys (last axis). The diagonal is never masked, so every row
    # has a finite maximum and exp(-inf) gives exact zeros above the diagonal.
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)

    y = merge_heads(weights @ v) @ W_o  # (B, T, d_model)
    return y, weights
