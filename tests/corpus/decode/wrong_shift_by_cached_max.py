# attnprep: decode
# expect: fail stable
# mistake: softmax shifted by the max over the cached scores only (the new token's own score is left out, and the first step is not shifted at all), so a dominant self score overflows to inf/nan
# diagnosis: shift-by-cached-max
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    scale = 1.0 / np.sqrt(d_head)

    q = (x_t @ W_q).reshape(B, n_heads, d_head)
    k = (x_t @ W_k).reshape(B, n_heads, 1, d_head)
    v = (x_t @ W_v).reshape(B, n_heads, 1, d_head)

    self_score = np.einsum("bhd,bhd->bh", q, k[:, :, 0])[..., None] * scale      # (B, H, 1)
    if cache is None:
        s = self_score
        K_new, V_new = k, v
    else:
        K, V = cache
        past = np.einsum("bhd,bhtd->bht", q, K) * scale                           # (B, H, t)
        m = past.max(axis=-1, keepdims=True)       # the history sets the scale
        s = np.concatenate([past, self_score], axis=-1) - m
        K_new = np.concatenate([K, k], axis=2)
        V_new = np.concatenate([V, v], axis=2)

    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    o = np.einsum("bht,bhtd->bhd", w, V_new)
    return o.reshape(B, d_model) @ W_o, (K_new, V_new)
