# attnprep: decode
# expect: pass
# style: a loop over heads with column slices of the weights, a softmax helper with np.nanmax, np.concatenate with expand_dims, cache returned as a list, y assembled by np.hstack
import numpy as np


def softmax(s, axis):
    e = np.exp(s - np.nanmax(s, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, D = x_t.shape
    hd = D // n_heads
    Ks, Vs, outs = [], [], []
    for h in range(n_heads):
        cols = slice(h * hd, (h + 1) * hd)
        q = x_t @ W_q[:, cols]          # (B, hd)
        k = np.expand_dims(x_t @ W_k[:, cols], 1)
        v = np.expand_dims(x_t @ W_v[:, cols], 1)
        if cache is not None:
            k = np.concatenate([cache[0][:, h], k], axis=1)
            v = np.concatenate([cache[1][:, h], v], axis=1)
        w = softmax(np.matmul(k, q[:, :, None])[:, :, 0] / hd ** 0.5, axis=1)  # (B, t+1)
        outs.append(np.einsum("bt,btd->bd", w, v))
        Ks.append(k)
        Vs.append(v)
    return np.hstack(outs) @ W_o, [np.stack(Ks, axis=1), np.stack(Vs, axis=1)]
