# attnprep: gqa
# expect: pass
# style: np.split/np.stack heads, row softmax via np.apply_along_axis, np.tri mask, np.hstack merge, default args
import numpy as np


def _row_softmax(row):
    e = np.exp(row - np.max(row))
    return e / np.sum(e)


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads=8, n_kv_heads=2):
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be divisible by n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    group = n_heads // n_kv_heads
    Q = np.stack(np.split(x @ W_q, n_heads, axis=-1), axis=1)      # (B, H, T, hd)
    K = np.stack(np.split(x @ W_k, n_kv_heads, axis=-1), axis=1)   # (B, H_kv, T, hd)
    V = np.stack(np.split(x @ W_v, n_kv_heads, axis=-1), axis=1)
    ys = []
    for b in range(B):
        outs = []
        for h in range(n_heads):
            s = Q[b, h] @ K[b, h // group].T / np.sqrt(hd)
            s = np.where(np.tri(T, dtype=bool), s, -np.inf)
            w = np.apply_along_axis(_row_softmax, 1, s)
            outs.append(w @ V[b, h // group])
        ys.append(np.hstack(tuple(outs)) @ W_o)
    return np.array(ys)
