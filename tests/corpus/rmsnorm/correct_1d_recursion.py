# attnprep: rmsnorm
# expect: pass
# style: a 1-D base case and recursion over the leading axis for higher ranks (a different code path per rank)
import math

import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    if x.ndim > 1:
        return np.stack([rms_norm(row, weight, eps) for row in x]) if len(x) else x.copy()
    ms = math.fsum(v * v for v in x) / len(x)
    return np.array([v / math.sqrt(ms + eps) * w for v, w in zip(x, weight)])


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    if x.ndim > 1:
        return np.stack([layer_norm(row, weight, bias, eps) for row in x]) if len(x) else x.copy()
    mu = math.fsum(x) / len(x)
    var = math.fsum((v - mu) ** 2 for v in x) / len(x)
    return np.array([(v - mu) / math.sqrt(var + eps) * w + b for v, w, b in zip(x, weight, bias)])
