# attnprep: window
# expect: fail equals-causal
# mistake: "window >= T means no window" fast path drops the mask entirely, so with window >= T every query sees the future (should be plain causal attention)
# diagnosis: full-window-unmasked
import math

import torch


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i = torch.arange(T).unsqueeze(1)
    j = torch.arange(T).unsqueeze(0)
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    T, d_k = q.shape
    scores = q @ k.T / math.sqrt(d_k)
    if window < T:  # otherwise the window covers the whole sequence: nothing to mask
        scores = scores.masked_fill(sliding_window_mask(T, window), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
