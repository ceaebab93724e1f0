# attnprep: decode
# expect: pass
# style: mha-style split via (B, 1, H, d_head) and a transpose; -1e9-free softmax via logsumexp
import numpy as np


def split(a, n_heads):
    B, T, d = a.shape
    return a.reshape(B, T, n_heads, d // n_heads).transpose(0, 2, 1, 3)


def merge(a):
    B, H, T, dh = a.shape
    return a.transpose(0, 2, 1, 3).reshape(B, T, H * dh)


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    x = x_t[:, None, :]                       # (B, 1, d_model): a sequence of length one
    q, k, v = (split(x @ W, n_heads) for W in (W_q, W_k, W_v))
    if cache is not None:
        K_old, V_old = cache
        k = np.concatenate((K_old, k), axis=-2)
        v = np.concatenate((V_old, v), axis=-2)
    d_head = q.shape[-1]
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * (1.0 / np.sqrt(d_head))
    m = s.max(axis=-1, keepdims=True)
    lse = m + np.log(np.exp(s - m).sum(axis=-1, keepdims=True))
    w = np.exp(s - lse)
    y = merge(w @ v)[:, 0, :] @ W_o
    return y, (k, v)
