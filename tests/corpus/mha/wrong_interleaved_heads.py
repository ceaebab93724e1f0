# attnprep: mha
# expect: fail split-layout merge-layout matches-reference
# diagnosis: interleaved-heads
# mistake: reshapes to (B, T, d_head, n_heads), so head h gets the strided features h, h + n_heads, ... (merge mirrors it, so the round trip still works)
# must-pass: scale
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    return x.reshape(B, T, D // n_heads, n_heads).transpose(0, 3, 1, 2)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.transpose(0, 2, 3, 1).reshape(B, T, H * dh)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    s = q @ k.swapaxes(-1, -2) / np.sqrt(D // n_heads)
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return merge_heads(w @ v) @ W_o, w
