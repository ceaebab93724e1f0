# attnprep: window
# expect: fail stable
# diagnosis: max-before-mask
# must-pass: mask row-counts shape sum-to-one blocked-zero window-one equals-causal prefix scale bad-input input-unchanged
# mistake: takes each row's max over ALL scores (blocked ones included), then zeroes the blocked exps; a blocked key scoring far higher underflows the open ones to 0/0
import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return (j > i) | (i - j >= window)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(q.shape[0], window)
    s = q @ k.T / np.sqrt(q.shape[1])
    e = np.exp(s - s.max(axis=-1, keepdims=True)) * ~mask
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
