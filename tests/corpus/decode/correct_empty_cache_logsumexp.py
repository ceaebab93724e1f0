# attnprep: decode
# expect: pass
# style: cache=None turned into empty (B, H, 0, d_head) arrays so one code path serves both cases, weights as exp(s - logsumexp(s))
import numpy as np


def _split(a, n_heads):
    B, d = a.shape
    return a.reshape(B, n_heads, d // n_heads)[:, :, None, :]      # (B, H, 1, dh)


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    if cache is None:
        empty = np.zeros((B, n_heads, 0, d_head))
        cache = (empty, empty)
    K_old, V_old = cache

    q = _split(x_t @ W_q, n_heads)
    K_new = np.concatenate((K_old, _split(x_t @ W_k, n_heads)), axis=-2)
    V_new = np.concatenate((V_old, _split(x_t @ W_v, n_heads)), axis=-2)

    s = (q @ np.swapaxes(K_new, -1, -2)) * d_head ** -0.5           # (B, H, 1, t+1)
    m = np.max(s, axis=-1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(s - m), axis=-1, keepdims=True))
    o = np.exp(s - lse) @ V_new                                     # (B, H, 1, dh)
    y_t = o[:, :, 0, :].reshape(B, d_model) @ W_o
    return y_t, (K_new, V_new)
