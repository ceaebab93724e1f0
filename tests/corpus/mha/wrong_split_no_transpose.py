# attnprep: mha
# expect: fail split-layout matches-reference prefix merge-layout
# mistake: reshapes straight to (B, H, T, d_head) without the transpose, so heads get slices of several positions
# diagnosis: split-without-transpose merge-without-transpose
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    return x.reshape(B, n_heads, T, D // n_heads)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.reshape(B, T, H * dh)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(D // n_heads)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return merge_heads(weights @ v) @ W_o, weights
