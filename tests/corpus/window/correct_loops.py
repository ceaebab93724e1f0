# attnprep: window
# expect: pass
# style: plain Python loops over the open range of every row, math.exp
import math

import numpy as np


def sliding_window_mask(T, window):
    if window < 1:
        raise ValueError("window < 1")
    mask = np.ones((T, T), dtype=bool)
    for i in range(T):
        for j in range(max(0, i - window + 1), i + 1):
            mask[i, j] = False
    return mask


def window_attention(q, k, v, window):
    if window < 1:
        raise ValueError("window < 1")
    T, d_k = len(q), len(q[0])
    weights = np.zeros((T, T))
    for i in range(T):
        keys = range(max(0, i - window + 1), i + 1)
        scores = {j: sum(q[i][c] * k[j][c] for c in range(d_k)) / math.sqrt(d_k) for j in keys}
        top = max(scores.values())
        exps = {j: math.exp(s - top) for j, s in scores.items()}
        total = sum(exps.values())
        for j, e in exps.items():
            weights[i, j] = e / total
    return weights @ np.asarray(v, dtype=float), weights
