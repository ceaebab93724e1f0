# attnprep: mha
# expect: fail upper-triangle-zero
# diagnosis: weights-before-mask
# mistake: returns the softmax of the unmasked scores as the weights (for plotting), while y uses the masked ones
# must-pass: scale sum-to-one batch-independent single-head shape input-unchanged
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
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    s = q @ k.swapaxes(-1, -2) / np.sqrt(D // n_heads)
    raw = np.exp(s - s.max(axis=-1, keepdims=True))
    raw /= raw.sum(axis=-1, keepdims=True)
    m = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    w = np.exp(m - m.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return merge_heads(w @ v) @ W_o, raw
