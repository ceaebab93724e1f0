# attnprep: decode
# expect: fail cache-content matches-full
# must-pass: stable
# mistake: splits features into heads as (d_head, n_heads), so head h gets every n_heads-th feature
# diagnosis: heads-interleaved
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads

    def heads(a):
        return a.reshape(B, d_head, n_heads).transpose(0, 2, 1)[:, :, None, :]

    q, k, v = heads(x_t @ W_q), heads(x_t @ W_k), heads(x_t @ W_v)
    if cache is None:
        K, V = k, v
    else:
        K = np.concatenate([cache[0], k], axis=2)
        V = np.concatenate([cache[1], v], axis=2)
    s = q @ K.swapaxes(-1, -2) / np.sqrt(d_head)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    out = (w @ V)[:, :, 0, :].transpose(0, 2, 1).reshape(B, d_model)
    return out @ W_o, (K, V)
