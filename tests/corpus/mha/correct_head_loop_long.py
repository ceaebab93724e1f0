# attnprep: mha
# expect: pass
# style: all heads at once for short sequences; from 512 positions on one head at a time, to keep a single (B, T, T) score array in memory
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError(f"d_model {D} is not a multiple of n_heads {n_heads}")
    return x.reshape(B, T, n_heads, D // n_heads).transpose(0, 2, 1, 3)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.transpose(0, 2, 1, 3).reshape(B, T, H * dh)


def _softmax_causal(s):
    T = s.shape[-1]
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    dh = D // n_heads
    if T < 512:
        w = _softmax_causal(q @ np.swapaxes(k, -1, -2) / np.sqrt(dh))
        return merge_heads(w @ v) @ W_o, w
    w = np.empty((B, n_heads, T, T))
    heads = np.empty((B, n_heads, T, dh))
    for h in range(n_heads):
        w[:, h] = _softmax_causal(q[:, h] @ np.swapaxes(k[:, h], -1, -2) / np.sqrt(dh))
        heads[:, h] = w[:, h] @ v[:, h]
    return merge_heads(heads) @ W_o, w
