# attnprep: mha
# expect: pass
# style: q and k each divided by d_head**0.25, an arange-comparison mask with -1e30, extra keyword-only options, np.int64 head counts welcome, list results
import numpy as np


def split_heads(x, n_heads):
    x = np.asarray(x)
    n_heads = int(n_heads)
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("d_model % n_heads != 0")
    return np.stack([x[:, :, h * (D // n_heads):(h + 1) * (D // n_heads)] for h in range(n_heads)], axis=1)


def merge_heads(x):
    x = np.asarray(x)
    B, H, T, dh = x.shape
    return np.moveaxis(x, 1, 2).reshape(B, T, H * dh)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads, *, return_weights=True, mask_value=-1e30):
    x = np.asarray(x, dtype=float)
    D = x.shape[-1]
    if D % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    dh = D // n_heads
    q = split_heads(x @ W_q, n_heads) / dh ** 0.25
    k = split_heads(x @ W_k, n_heads) / dh ** 0.25
    v = split_heads(x @ W_v, n_heads)
    T = x.shape[1]
    pos = np.arange(T)
    s = q @ k.swapaxes(-1, -2)
    s = np.where(pos[None, :] > pos[:, None], mask_value, s)
    s = s - s.max(-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(-1, keepdims=True)
    y = merge_heads(w @ v) @ W_o
    return (y.tolist(), w.tolist()) if return_weights else y.tolist()
