# attnprep: mha
# expect: fail upper-triangle-zero
# diagnosis: keep-mask-as-blocked
# mistake: builds the keep-mask np.tril(ones) but passes it to np.where as if True meant blocked, so the past and the diagonal are masked and only the future is seen
# must-pass: scale batch-independent shape input-unchanged
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
    causal = np.tril(np.ones((T, T), dtype=bool))
    s = np.where(causal, -1e9, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return merge_heads(w @ v) @ W_o, w
