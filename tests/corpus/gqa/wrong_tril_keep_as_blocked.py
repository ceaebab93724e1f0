# attnprep: gqa
# expect: fail prefix
# diagnosis: keep-mask-as-blocked
# mistake: builds the keep-mask np.tril(ones) and then fills where it is True, so each position sees only its future (the last one sees nothing: 0/0)
# must-pass: group-mapping bad-input input-unchanged
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    q = (x @ W_q).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    k = np.repeat((x @ W_k).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3), g, axis=1)
    v = np.repeat((x @ W_v).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3), g, axis=1)
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(hd)
    causal = np.tril(np.ones((T, T), dtype=bool))
    s = np.where(causal, -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return (w @ v).transpose(0, 2, 1, 3).reshape(B, T, n_heads * hd) @ W_o
