# attnprep: mha
# expect: pass
# style: split and merge as einsum-free reshapes with -1, everything else one einsum each with unusual letters, T == 1 shortcut without a mask
import numpy as np


def split_heads(x, n_heads):
    b, t, d = x.shape
    if d % n_heads:
        raise ValueError("bad head count")
    return x.reshape(b, t, n_heads, -1).transpose(0, 2, 1, 3)


def merge_heads(x):
    b, h, t, e = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, t, -1)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    if x.shape[-1] % n_heads:
        raise ValueError("bad head count")
    dh = x.shape[-1] // n_heads
    Q = split_heads(np.einsum("zpm,mn->zpn", x, W_q), n_heads)
    K = split_heads(np.einsum("zpm,mn->zpn", x, W_k), n_heads)
    V = split_heads(np.einsum("zpm,mn->zpn", x, W_v), n_heads)
    S = np.einsum("zaic,zajc->zaij", Q, K) / np.sqrt(dh)
    T = x.shape[1]
    if T > 1:
        S = np.where(np.tri(T, T, 0, dtype=bool), S, -np.inf)
    S = S - S.max(axis=-1, keepdims=True)
    P = np.exp(S)
    P = P / P.sum(axis=-1, keepdims=True)
    O = np.einsum("zaij,zajc->ziac", P, V).reshape(x.shape[0], T, -1)
    return np.einsum("zpn,nm->zpm", O, W_o), P
