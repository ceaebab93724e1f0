# attnprep: rope
# expect: pass
# style: plain loops over rows and pairs with math.cos/math.sin on a private copy
import math

import numpy as np


def rope(x, positions, base=10000.0):
    x = np.array(x, dtype=np.float64)  # a private copy, safe to overwrite
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    flat = x.reshape(-1, x.shape[-2], d)
    for b in range(flat.shape[0]):
        for t in range(flat.shape[1]):
            p = int(positions[t])
            for i in range(half):
                angle = p * base ** (-2 * i / d)
                c, s = math.cos(angle), math.sin(angle)
                a, bb = flat[b, t, i], flat[b, t, i + half]
                flat[b, t, i] = a * c - bb * s
                flat[b, t, i + half] = a * s + bb * c
    return flat.reshape(x.shape)
