# attnprep: rmsnorm
# expect: pass
# style: np.ndindex loop over leading indices, math.fsum, float(eps), integer-safe copies, returns a tuple-built array
import math

import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.array(x, dtype=float)
    w = np.array(weight, dtype=float)
    out = np.empty_like(x)
    for idx in np.ndindex(*x.shape[:-1]):
        v = x[idx]
        r = math.sqrt(math.fsum(t * t for t in v) / len(v) + float(eps))
        out[idx] = tuple(a / r * b for a, b in zip(v, w))
    return out


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.array(x, dtype=float)
    out = np.empty_like(x)
    for idx in np.ndindex(*x.shape[:-1]):
        v = x[idx]
        mu = math.fsum(v) / len(v)
        var = math.fsum((t - mu) ** 2 for t in v) / len(v)
        out[idx] = (v - mu) / math.sqrt(var + float(eps)) * weight + bias
    return out
