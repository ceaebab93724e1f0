# attnprep: decode
# expect: fail matches-full matches-reference
# mistake: runs the three projections in float32 "as the GPU would", then casts q, k and v back to float64 for the
#          attention: every output has float32's digits, which cancelling terms turn into visible errors
# diagnosis: float32-arithmetic
import numpy as np


def _project(x_t, W, n_heads):
    B, d_model = x_t.shape
    a = np.asarray(x_t, dtype=np.float32) @ np.asarray(W, dtype=np.float32)
    return a.astype(np.float64).reshape(B, n_heads, 1, d_model // n_heads)


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = np.shape(x_t)
    d_head = d_model // n_heads
    q, k, v = (_project(x_t, W, n_heads) for W in (W_q, W_k, W_v))
    if cache is None:
        K, V = k, v
    else:
        K = np.concatenate([cache[0], k], axis=2)
        V = np.concatenate([cache[1], v], axis=2)
    s = q @ K.swapaxes(-1, -2) / np.sqrt(d_head)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return (w @ V).reshape(B, d_model) @ W_o, (K, V)
