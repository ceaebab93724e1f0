# attnprep: decode
# expect: fail matches-full matches-reference
# must-pass: first-step cache-content batch-independent stable input-unchanged
# mistake: keeps a sliding window of the latest 2,048 positions (a fixed context length), so past 2,048 tokens the
#          oldest are dropped from the cache and from attention
# diagnosis: cache-window
import numpy as np

MAX_CONTEXT = 2048


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    q, k, v = ((x_t @ W).reshape(B, n_heads, 1, d_head) for W in (W_q, W_k, W_v))
    if cache is None:
        K, V = k, v
    else:
        K = np.concatenate([cache[0], k], axis=2)[:, :, -MAX_CONTEXT:]
        V = np.concatenate([cache[1], v], axis=2)[:, :, -MAX_CONTEXT:]
    s = q @ K.transpose(0, 1, 3, 2) / np.sqrt(d_head)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return (w @ V).reshape(B, d_model) @ W_o, (K, V)
