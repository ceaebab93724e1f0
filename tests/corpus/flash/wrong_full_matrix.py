# attnprep: flash
# expect: fail memory
# must-pass: stable scale
# mistake: forms the whole (T, T) score matrix and applies an ordinary softmax: exact, but not tiled
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    s = q @ k.T / np.sqrt(d)
    if causal:
        s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    s = s - s.max(axis=1, keepdims=True)
    w = np.exp(s)
    w /= w.sum(axis=1, keepdims=True)
    return w @ v
