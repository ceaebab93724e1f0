# attnprep: decode
# expect: fail cache-shape
# must-pass: stable
# mistake: stores the keys pre-transposed as (B, n_heads, d_head, t) and grows the last axis
# diagnosis: keys-stored-transposed
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    q = (x_t @ W_q).reshape(B, n_heads, 1, d_head)
    kT = (x_t @ W_k).reshape(B, n_heads, d_head, 1)
    v = (x_t @ W_v).reshape(B, n_heads, 1, d_head)
    if cache is None:
        KT, V = kT, v
    else:
        KT = np.concatenate([cache[0], kT], axis=-1)
        V = np.concatenate([cache[1], v], axis=2)
    s = q @ KT / np.sqrt(d_head)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    return (w @ V).reshape(B, d_model) @ W_o, (KT, V)
