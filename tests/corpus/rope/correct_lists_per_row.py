# attnprep: rope
# expect: pass
# style: one row at a time via np.ndindex over (..., T), math.cos/math.sin per pair, returned as nested lists
import math

import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=float)
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    freqs = [base ** (-2.0 * i / d) for i in range(half)]
    out = np.zeros_like(x)
    for idx in np.ndindex(*x.shape[:-1]):
        p = float(positions[idx[-1]])
        row = x[idx]
        for i, w in enumerate(freqs):
            c, s = math.cos(p * w), math.sin(p * w)
            out[idx + (i,)] = row[i] * c - row[i + half] * s
            out[idx + (i + half,)] = row[i] * s + row[i + half] * c
    return out.tolist()
