# attnprep: rope
# expect: pass
# style: moves the feature axis to the front (np.moveaxis), angles reduced mod 2*pi, np.split, keyword-friendly **kwargs
import numpy as np


def rope(x, positions, base=10000.0, **kwargs):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2 == 1:
        raise ValueError("rope: the feature size must be even")
    f = np.moveaxis(x, -1, 0)                          # (d, ..., T)
    x1, x2 = np.split(f, 2, axis=0)                    # (d/2, ..., T) each
    i = np.arange(d // 2).reshape((-1,) + (1,) * (f.ndim - 1))
    theta = np.mod(np.asarray(positions) * base ** (-2.0 * i / d), 2.0 * np.pi)
    out = np.concatenate([x1 * np.cos(theta) - x2 * np.sin(theta),
                          x1 * np.sin(theta) + x2 * np.cos(theta)], axis=0)
    return np.moveaxis(out, 0, -1)
