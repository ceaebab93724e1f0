# attnprep: mha
# expect: pass
# style: einsum for the projections, the scores and the weighted sum; np.where with -inf
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    return np.einsum("bthd->bhtd", x.reshape(B, T, n_heads, D // n_heads))


def merge_heads(x):
    B, H, T, dh = x.shape
    return np.einsum("bhtd->bthd", x).reshape(B, T, H * dh)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError(f"{n_heads} heads do not divide d_model={D}")
    dh = D // n_heads
    q = split_heads(np.einsum("btd,de->bte", x, W_q), n_heads)
    k = split_heads(np.einsum("btd,de->bte", x, W_k), n_heads)
    v = split_heads(np.einsum("btd,de->bte", x, W_v), n_heads)
    scores = np.einsum("bhid,bhjd->bhij", q, k) / np.sqrt(dh)
    i = np.arange(T)
    scores = np.where(i[None, :] > i[:, None], -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    out = np.einsum("bhij,bhjd->bhid", weights, v)
    y = np.einsum("btd,de->bte", merge_heads(out), W_o)
    return y, weights
