# attnprep: mha
# expect: pass
# style: einsum throughout; masks the raw scores with -1e9 before dividing by sqrt(d_head), still far below scores
# of -1e4 at d_head = 128 (-1e9 / 11.3)
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    return x.reshape(B, T, n_heads, D // n_heads).transpose(0, 2, 1, 3)


def merge_heads(x):
    B, H, T, d = x.shape
    return x.transpose(0, 2, 1, 3).reshape(B, T, H * d)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    if n_heads < 1 or D % n_heads:
        raise ValueError("d_model must be a multiple of n_heads")
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    raw = np.einsum("bhid,bhjd->bhij", q, k)
    raw = np.where(np.triu(np.ones((T, T), dtype=bool), k=1), -1e9, raw)
    s = raw / np.sqrt(D // n_heads)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return merge_heads(np.einsum("bhij,bhjd->bhid", w, v)) @ W_o, w
