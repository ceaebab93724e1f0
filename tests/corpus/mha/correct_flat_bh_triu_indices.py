# attnprep: mha
# expect: pass
# style: heads flattened into one (B*H) batch of 3-D matmuls, the future set with np.triu_indices fancy indexing, merge by concatenating the heads' feature blocks
import numpy as np


def split_heads(x, n_heads):
    B, T, D = np.shape(x)
    if n_heads <= 0 or D % n_heads:
        raise ValueError("n_heads must divide d_model")
    return np.ascontiguousarray(np.reshape(x, (B, T, n_heads, -1)).swapaxes(1, 2))


def merge_heads(x):
    x = np.asarray(x)
    return np.concatenate([x[:, h] for h in range(x.shape[1])], axis=-1)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    if D % n_heads != 0:
        raise ValueError(f"{D} % {n_heads} != 0")
    dh = D // n_heads
    q, k, v = (split_heads(x @ W, n_heads).reshape(B * n_heads, T, dh) for W in (W_q, W_k, W_v))
    s = np.matmul(q, k.transpose(0, 2, 1)) * dh ** -0.5
    i, j = np.triu_indices(T, 1)
    s[:, i, j] = -np.inf
    s -= s.max(axis=2, keepdims=True)
    w = np.exp(s)
    w /= w.sum(axis=2, keepdims=True)
    out = np.matmul(w, v).reshape(B, n_heads, T, dh)
    return merge_heads(out) @ W_o, w.reshape(B, n_heads, T, T)
