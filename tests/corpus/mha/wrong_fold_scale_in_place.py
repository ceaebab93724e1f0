# attnprep: mha
# expect: fail input-unchanged
# diagnosis: scale-folded-in-place
# mistake: folds 1/sqrt(d_head) into W_q with /=, changing the caller's matrix on every call
# must-pass: scale
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
    W_q /= np.sqrt(D // n_heads)  # scale once, in the projection
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    scores = q @ np.swapaxes(k, -1, -2)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return merge_heads(weights @ v) @ W_o, weights
