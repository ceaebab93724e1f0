# attnprep: window torch
"""Reference solution in PyTorch: causal sliding-window attention."""

import math

import torch


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    i = torch.arange(T)[:, None]  # query positions
    j = torch.arange(T)[None, :]  # key positions
    # Blocked: the future, and keys `window` or more steps back (the window counts the position itself).
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    return weights @ v, weights
