# attnprep: mha
# expect: fail bad-input
# diagnosis: drops-features
# mistake: only rejects n_heads > d_model, so a head count that does not divide d_model silently drops the last features
# must-pass: scale shape sum-to-one upper-triangle-zero prefix batch-independent single-head input-unchanged
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    dh = D // n_heads
    return x[..., :n_heads * dh].reshape(B, T, n_heads, dh).transpose(0, 2, 1, 3)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.transpose(0, 2, 1, 3).reshape(B, T, H * dh)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    if n_heads > D:
        raise ValueError("more heads than features")
    dh = D // n_heads
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    s = q @ k.swapaxes(-1, -2) / np.sqrt(dh)
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return merge_heads(w @ v) @ W_o[:n_heads * dh], w
