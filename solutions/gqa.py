# attnprep: gqa
"""Reference solution: causal grouped-query attention."""

import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError(f"n_heads={n_heads} is not a multiple of n_kv_heads={n_kv_heads}")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    group = n_heads // n_kv_heads  # query heads per KV head

    def heads(a, n):
        # (B, T, n*hd) -> (B, n, T, hd): split the features, then move heads before time.
        return a.reshape(B, T, n, hd).transpose(0, 2, 1, 3)

    q = heads(x @ W_q, n_heads)      # (B, H, T, hd)
    k = heads(x @ W_k, n_kv_heads)   # (B, H_kv, T, hd)
    v = heads(x @ W_v, n_kv_heads)
    # Query head h reads KV head h // group: repeat each KV head `group` times in a
    # row (np.repeat, not np.tile, which would cycle through the KV heads instead).
    k = np.repeat(k, group, axis=1)  # (B, H, T, hd)
    v = np.repeat(v, group, axis=1)

    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)    # (B, H, T, T)
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    scores = np.where(future, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)  # the diagonal is never masked
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)

    out = weights @ v                                       # (B, H, T, hd)
    # Merge: heads back after time, then flatten (transpose before reshape).
    out = out.transpose(0, 2, 1, 3).reshape(B, T, n_heads * hd)
    return out @ W_o
