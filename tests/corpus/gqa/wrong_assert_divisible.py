# attnprep: gqa
# expect: fail bad-input
# must-pass: shape equals-mha mqa group-mapping scale prefix stable matches-reference
# mistake: checks the head counts with assert, so a bad count raises AssertionError, not ValueError
# diagnosis: assert-divisible
import numpy as np


def _split(t, n, hd):
    B, T, _ = t.shape
    return t.reshape(B, T, n, hd).transpose(0, 2, 1, 3)


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    assert n_heads % n_kv_heads == 0, "n_heads must be a multiple of n_kv_heads"
    x = np.asarray(x, dtype=np.float64)
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    g = n_heads // n_kv_heads
    q = _split(x @ W_q, n_heads, hd)
    k = np.repeat(_split(x @ W_k, n_kv_heads, hd), g, axis=1)
    v = np.repeat(_split(x @ W_v, n_kv_heads, hd), g, axis=1)
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(hd)
    s = s + np.triu(np.full((T, T), -np.inf), 1)
    s = s - s.max(-1, keepdims=True)
    p = np.exp(s)
    p = p / p.sum(-1, keepdims=True)
    o = (p @ v).transpose(0, 2, 1, 3).reshape(B, T, -1)
    return o @ W_o
