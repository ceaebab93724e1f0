# attnprep: decode
# expect: pass
# style: private copies and in-place work on them, preallocated cache filled at index -1, np.logaddexp.reduce
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    x_t = np.array(x_t, dtype=np.float64)      # a private copy
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    t = 0 if cache is None else cache[0].shape[2]
    K = np.zeros((B, n_heads, t + 1, d_head))
    V = np.zeros_like(K)
    if t:
        K[:, :, :t] = cache[0]
        V[:, :, :t] = cache[1]
    K[:, :, -1] = (x_t @ W_k).reshape(B, n_heads, d_head)
    V[:, :, -1] = (x_t @ W_v).reshape(B, n_heads, d_head)
    q = (x_t @ W_q).reshape(B, n_heads, 1, d_head)
    q /= np.sqrt(d_head)                      # in place on our own array
    s = (q @ K.swapaxes(2, 3))[:, :, 0, :]    # (B, H, t+1)
    log_z = np.logaddexp.reduce(s, axis=-1, keepdims=True)
    w = np.exp(s - log_z)
    out = np.sum(w[..., None] * V, axis=2)    # (B, H, d_head)
    return out.reshape(B, d_model) @ W_o, (K, V)
