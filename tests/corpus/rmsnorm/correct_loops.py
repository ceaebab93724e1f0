# attnprep: rmsnorm
# expect: pass
# style: plain Python loops over every vector, math.sqrt
import math

import numpy as np


def _rms_1d(v, w, eps):
    ms = sum(a * a for a in v) / len(v)
    inv = 1.0 / math.sqrt(ms + eps)
    return [a * inv * wi for a, wi in zip(v, w)]


def _ln_1d(v, w, b, eps):
    n = len(v)
    mu = sum(v) / n
    var = sum((a - mu) ** 2 for a in v) / n
    inv = 1.0 / math.sqrt(var + eps)
    return [(a - mu) * inv * wi + bi for a, wi, bi in zip(v, w, b)]


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=float)
    flat = x.reshape(-1, x.shape[-1])
    out = np.empty_like(flat)
    for i in range(flat.shape[0]):
        out[i] = _rms_1d(list(flat[i]), list(weight), eps)
    return out.reshape(x.shape)


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=float)
    flat = x.reshape(-1, x.shape[-1])
    out = np.empty_like(flat)
    for i in range(flat.shape[0]):
        out[i] = _ln_1d(list(flat[i]), list(weight), list(bias), eps)
    return out.reshape(x.shape)
