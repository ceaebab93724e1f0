# attnprep: decode
# expect: fail matches-reference
# must-pass: cache-shape first-step cache-content input-unchanged
# mistake: past 10,000 cached positions it attends block by block, each shifted by its own maximum, never rescaled
import numpy as np

BLOCK = 2048


def _split(x, n_heads):
    b, d = x.shape
    return x.reshape(b, n_heads, 1, d // n_heads)


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    q, k, v = (_split(x_t @ W, n_heads) for W in (W_q, W_k, W_v))
    if cache is None:
        K, V = k, v
    else:
        K = np.concatenate([cache[0], k], axis=2)
        V = np.concatenate([cache[1], v], axis=2)
    scale = 1.0 / np.sqrt(q.shape[-1])
    n = K.shape[2]
    if n <= 10_000:
        s = (q @ np.swapaxes(K, -1, -2)) * scale
        w = np.exp(s - s.max(axis=-1, keepdims=True))
        out = (w @ V) / w.sum(axis=-1, keepdims=True)
    else:  # long contexts: never hold all the scores at once
        acc = np.zeros_like(q)
        norm = np.zeros(q.shape[:-1] + (1,))
        for lo in range(0, n, BLOCK):
            s = (q @ np.swapaxes(K[:, :, lo:lo + BLOCK], -1, -2)) * scale
            w = np.exp(s - s.max(axis=-1, keepdims=True))
            acc += w @ V[:, :, lo:lo + BLOCK]
            norm += w.sum(axis=-1, keepdims=True)
        out = acc / norm
    b = x_t.shape[0]
    return out.reshape(b, -1) @ W_o, (K, V)
