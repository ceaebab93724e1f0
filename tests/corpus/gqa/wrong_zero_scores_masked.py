# attnprep: gqa
# expect: fail matches-reference
# must-pass: shape mqa scale bad-input input-unchanged
# mistake: masks the future by np.tril on the scores and then blocks every zero score, so a position whose x is all zeros (scores of exactly 0) is cut off and its own row turns into 0/0
# diagnosis: zero-scores-blocked
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads:
        raise ValueError("n_heads % n_kv_heads != 0")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    q = (x @ W_q).reshape(B, T, n_heads, hd).swapaxes(1, 2)
    k = (x @ W_k).reshape(B, T, n_kv_heads, hd).swapaxes(1, 2)
    v = (x @ W_v).reshape(B, T, n_kv_heads, hd).swapaxes(1, 2)
    rep = n_heads // n_kv_heads
    k, v = np.repeat(k, rep, axis=1), np.repeat(v, rep, axis=1)
    s = np.tril(q @ k.swapaxes(-1, -2) / np.sqrt(hd))
    s = np.where(s == 0, -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return (w @ v).swapaxes(1, 2).reshape(B, T, n_heads * hd) @ W_o
