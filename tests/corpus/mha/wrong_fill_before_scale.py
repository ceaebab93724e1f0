# attnprep: mha
# expect: fail matches-reference
# mistake: masks the raw scores with -1e5 and only then divides by sqrt(d_head): at d_head = 128 the fill is -8,839,
# above scores near -1e4
# must-pass: split-layout merge-layout prefix bad-input
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    return x.reshape(B, T, n_heads, D // n_heads).transpose(0, 2, 1, 3)


def merge_heads(x):
    B, H, T, d = x.shape
    return x.transpose(0, 2, 1, 3).reshape(B, T, H * d)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    s = np.where(future, -1e5, q @ k.swapaxes(-1, -2)) / np.sqrt(D // n_heads)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return merge_heads(w @ v) @ W_o, w
