# attnprep: rope
# expect: pass
# style: np.outer of float positions and exp(-2i/d * log(base)), angles reduced mod 2*pi, np.split, returns lists, **kwargs
import numpy as np


def rope(x, positions, base=10000.0, **kwargs):
    x = np.asarray(x, dtype=float)
    d = x.shape[-1]
    if d & 1:
        raise ValueError("d must be even")
    half = d // 2
    inv_freq = np.exp(-2.0 * np.arange(half) / d * np.log(base))
    ang = np.mod(np.outer(np.asarray(positions, dtype=float), inv_freq), 2 * np.pi)
    c, s = np.cos(ang), np.sin(ang)
    x1, x2 = np.split(x, 2, axis=-1)
    return np.concatenate((x1 * c - x2 * s, x2 * c + x1 * s), axis=-1).tolist()
