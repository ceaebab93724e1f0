# attnprep: gqa
# expect: fail stable
# must-pass: shape equals-mha mqa group-mapping scale prefix bad-input input-unchanged
# mistake: shifts the scores by their row maximum only if one of them is large and positive, so a problem whose scores are all thousands below 0 underflows to 0/0
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    group = n_heads // n_kv_heads
    q = (x @ W_q).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    k = (x @ W_k).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3).repeat(group, axis=1)
    v = (x @ W_v).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3).repeat(group, axis=1)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
    scores[..., np.triu(np.ones((T, T), dtype=bool), 1)] = -np.inf
    if scores.max() > 80.0:
        scores -= scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p /= p.sum(axis=-1, keepdims=True)
    return (p @ v).transpose(0, 2, 1, 3).reshape(B, T, n_heads * hd) @ W_o
