# attnprep: decode
# expect: fail matches-full matches-reference input-unchanged
# must-pass: first-step cache-content batch-independent stable
# mistake: copies the cache into a preallocated buffer of max_seq_len = 256 positions, which raises once the cache
#          holds 256 positions
# diagnosis: fixed-size-buffer
import numpy as np

MAX_SEQ_LEN = 256


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    t = 0 if cache is None else cache[0].shape[2]
    K = np.zeros((B, n_heads, MAX_SEQ_LEN, d_head))
    V = np.zeros((B, n_heads, MAX_SEQ_LEN, d_head))
    if cache is not None:
        K[:, :, :t], V[:, :, :t] = cache
    K[:, :, t] = (x_t @ W_k).reshape(B, n_heads, d_head)
    V[:, :, t] = (x_t @ W_v).reshape(B, n_heads, d_head)
    K, V = K[:, :, :t + 1], V[:, :, :t + 1]
    q = (x_t @ W_q).reshape(B, n_heads, 1, d_head)
    s = q @ K.swapaxes(-1, -2) / np.sqrt(d_head)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return (w @ V).reshape(B, d_model) @ W_o, (K, V)
