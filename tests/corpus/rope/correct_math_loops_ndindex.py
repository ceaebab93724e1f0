# attnprep: rope
# expect: pass
# style: Python loops with math.cos / math.sin per row and pair, np.ndindex over the leading axes, int(p) positions
import math

import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    *lead, T, d = x.shape
    if d % 2:
        raise ValueError("rope needs an even d")
    half = d // 2
    pos = [int(p) for p in positions]
    out = np.empty_like(x)
    for idx in np.ndindex(*lead):
        for t in range(T):
            row, res = x[idx + (t,)], out[idx + (t,)]
            for i in range(half):
                theta = pos[t] * base ** (-2 * i / d)
                c, s = math.cos(theta), math.sin(theta)
                a, b = row[i], row[i + half]
                res[i] = a * c - b * s
                res[i + half] = a * s + b * c
    return out
