# attnprep: decode
# expect: pass
# style: keys and values kept in a buffer whose capacity doubles when full (amortised appends), returned as views
#        of the filled positions; the softmax through log-sum-exp
import numpy as np


def _grow(old, new, t):
    B, H, _, d = new.shape
    cap = 1
    while cap < t + 1:
        cap *= 2
    buf = np.empty((B, H, cap, d))
    if old is not None:
        buf[:, :, :t] = old
    buf[:, :, t] = new[:, :, 0]
    return buf[:, :, :t + 1]


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    x_t = np.asarray(x_t, dtype=float)
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    heads = [(x_t @ W).reshape(B, n_heads, 1, d_head) for W in (W_q, W_k, W_v)]
    q, k, v = heads
    t = 0 if cache is None else np.shape(cache[0])[2]
    K = _grow(None if cache is None else cache[0], k, t)
    V = _grow(None if cache is None else cache[1], v, t)
    s = np.einsum("bhqd,bhkd->bhqk", q, K) / np.sqrt(d_head)
    m = s.max(axis=-1, keepdims=True)
    lse = m + np.log(np.exp(s - m).sum(axis=-1, keepdims=True))
    out = np.einsum("bhqk,bhkd->bhqd", np.exp(s - lse), V)
    return out.reshape(B, d_model) @ W_o, (K, V)
