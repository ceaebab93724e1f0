# attnprep: mha
# expect: fail matches-reference
# must-pass: split-layout merge-layout round-trip shape sum-to-one prefix batch-independent single-head bad-input input-unchanged
# mistake: subtracts the row maximum only when some score is above 500 (to skip the work in the common case), so when every score is far below 0 the exponentials underflow to 0/0
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    return x.reshape(B, T, n_heads, D // n_heads).transpose(0, 2, 1, 3)


def merge_heads(h):
    B, H, T, d = h.shape
    return h.transpose(0, 2, 1, 3).reshape(B, T, H * d)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    if x.shape[-1] % n_heads:
        raise ValueError("d_model must be a multiple of n_heads")
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    T = x.shape[1]
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    if np.max(s) > 500:
        s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    return merge_heads(w @ v) @ W_o, w
