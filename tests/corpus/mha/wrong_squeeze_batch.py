# attnprep: mha
# expect: fail batch-independent shape
# diagnosis: squeezes-batch
# mistake: squeezes x to a (T, d_model) matrix and writes 2-D code, which only works for batch size 1
# must-pass: scale prefix single-head sum-to-one upper-triangle-zero input-unchanged
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
    seq = np.squeeze(x)
    T, D = seq.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    q, k, v = (split_heads((seq @ W)[None], n_heads)[0] for W in (W_q, W_k, W_v))
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(D // n_heads)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    y = merge_heads((weights @ v)[None]) @ W_o
    return y, weights[None]
