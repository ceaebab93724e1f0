# attnprep: decode
# expect: pass
# style: runs full causal attention of the new query row against cache + token, -1e30 mask offset by t, keeps the last row
import numpy as np


def _causal_softmax(s):
    T_q, T_k = s.shape[-2:]
    # query i of the last T_q positions sits at absolute position T_k - T_q + i
    blocked = np.arange(T_k)[None, :] > (np.arange(T_q) + T_k - T_q)[:, None]
    s = np.where(blocked, -1e30, s)
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    hd = d_model // n_heads
    proj = lambda W: np.matmul(x_t, W).reshape(B, 1, n_heads, hd).transpose(0, 2, 1, 3)  # noqa: E731
    q, k, v = proj(W_q), proj(W_k), proj(W_v)
    K = k if cache is None else np.concatenate([np.asarray(cache[0]), k], axis=-2)
    V = v if cache is None else np.concatenate([np.asarray(cache[1]), v], axis=-2)
    w = _causal_softmax(np.matmul(q, K.transpose(0, 1, 3, 2)) / np.sqrt(hd))    # (B, H, 1, t+1)
    out = np.matmul(w, V)[:, :, -1, :]                                           # the new token's row
    return np.matmul(out.reshape(B, d_model), W_o), (K, V)
