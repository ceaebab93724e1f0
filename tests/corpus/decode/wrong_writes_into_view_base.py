# attnprep: decode
# expect: fail input-unchanged
# mistake: "static cache" optimisation: if the given K, V are a prefix view K_full[:, :, :t] of a longer array, it writes the new k, v into K_full[:, :, t] in place; corrupts the caller's arrays when the cache is passed as a slice of a longer buffer, or when two steps fork from the same cache (beam search)
import numpy as np

_GROW = 64


def _is_prefix_view(a, t):
    base = a.base
    return (
        isinstance(base, np.ndarray)
        and base.ndim == 4
        and base.flags.writeable
        and base.shape[0] == a.shape[0]
        and base.shape[1] == a.shape[1]
        and base.shape[3] == a.shape[3]
        and base.shape[2] > t
        and base.strides == a.strides
        and base.__array_interface__["data"][0] == a.__array_interface__["data"][0]
    )


def _append(buf_view, new, B, H, d_head):
    t = buf_view.shape[2]
    if _is_prefix_view(buf_view, t):
        base = buf_view.base
    else:
        base = np.empty((B, H, t + _GROW, d_head), dtype=new.dtype)
        base[:, :, :t] = buf_view
    base[:, :, t] = new[:, :, 0]
    return base[:, :, : t + 1]


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    q = (x_t @ W_q).reshape(B, n_heads, 1, d_head)
    k = (x_t @ W_k).reshape(B, n_heads, 1, d_head)
    v = (x_t @ W_v).reshape(B, n_heads, 1, d_head)
    if cache is None:
        empty = np.empty((B, n_heads, 0, d_head), dtype=k.dtype)
        cache = (empty, empty)
    K = _append(cache[0], k, B, n_heads, d_head)
    V = _append(cache[1], v, B, n_heads, d_head)
    s = (q @ K.transpose(0, 1, 3, 2)) / np.sqrt(d_head)
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p = p / p.sum(axis=-1, keepdims=True)
    y = (p @ V).reshape(B, d_model) @ W_o
    return y, (K, V)
