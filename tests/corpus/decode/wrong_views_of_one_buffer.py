# attnprep: decode
# expect: fail input-unchanged
# mistake: keeps one preallocated K/V buffer for the whole module "to avoid a copy per token" and returns slices of it, so decoding another sequence, or another beam, rewrites the cache the caller already holds
import numpy as np

_K = _V = None


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    global _K, _V
    x_t = np.asarray(x_t, dtype=np.float64)
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    q, k, v = ((x_t @ W).reshape(B, n_heads, 1, d_head) for W in (W_q, W_k, W_v))
    t = 0 if cache is None else cache[0].shape[2]
    if _K is None or _K.shape[:2] != (B, n_heads) or _K.shape[2] < t + 1 or _K.shape[3] != d_head:
        _K = np.empty((B, n_heads, max(2 * (t + 1), 64), d_head))
        _V = np.empty_like(_K)
    if cache is not None:
        _K[:, :, :t] = cache[0]
        _V[:, :, :t] = cache[1]
    _K[:, :, t] = k[:, :, 0]
    _V[:, :, t] = v[:, :, 0]
    K, V = _K[:, :, :t + 1], _V[:, :, :t + 1]
    s = q @ K.swapaxes(-1, -2) / np.sqrt(d_head)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    y = (w @ V).reshape(B, d_model) @ W_o
    return y, (K, V)
