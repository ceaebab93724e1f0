# attnprep: mha
# expect: pass
# style: one fused x @ [W_q | W_k | W_v] product, reshape with -1, finfo.min bias; y summed per head over W_o rows
import numpy as np


def split_heads(x, n_heads):
    B, T, D = np.shape(x)
    if D % n_heads:
        raise ValueError("d_model is not a multiple of n_heads")
    return np.reshape(x, (B, T, n_heads, -1)).swapaxes(1, 2)


def merge_heads(x):
    B, H, T, dh = np.shape(x)
    return np.ascontiguousarray(np.swapaxes(x, 1, 2)).reshape(B, T, -1)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    if D % n_heads != 0:
        raise ValueError(f"d_model={D} % n_heads={n_heads} != 0")
    dh = D // n_heads
    qkv = np.matmul(x, np.concatenate([W_q, W_k, W_v], axis=1))  # (B, T, 3D)
    q, k, v = (split_heads(part, n_heads) for part in np.split(qkv, 3, axis=-1))
    bias = np.where(np.tri(T, dtype=bool), 0.0, np.finfo(np.float64).min)
    scores = np.matmul(q, k.swapaxes(-1, -2)) / np.sqrt(dh) + bias
    scores -= np.amax(scores, axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= np.sum(weights, axis=-1, keepdims=True)
    heads = np.matmul(weights, v)  # (B, H, T, dh)
    # merge_heads(heads) @ W_o, written as a sum over heads of each head times its rows of W_o
    W_o_heads = W_o.reshape(n_heads, dh, D)
    y = np.einsum("bhtd,hde->bte", heads, W_o_heads)
    return [y, weights]
