# attnprep: mha
# expect: fail matches-reference
# must-pass: shape sum-to-one upper-triangle-zero prefix scale
# mistake: the scores go through the softmax in float32 "to save memory", the weights are cast back to float64
# diagnosis: softmax-in-float32
import numpy as np


def split_heads(x, n_heads):
    B, T, d = x.shape
    return x.reshape(B, T, n_heads, d // n_heads).transpose(0, 2, 1, 3)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.transpose(0, 2, 1, 3).reshape(B, T, H * dh)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    if x.shape[-1] % n_heads:
        raise ValueError("d_model must be a multiple of n_heads")
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    T = x.shape[1]
    scores = (q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])).astype(np.float32)
    scores[..., np.triu(np.ones((T, T), dtype=bool), 1)] = -np.inf
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    weights = weights.astype(np.float64)
    return merge_heads(weights @ v) @ W_o, weights
