# attnprep: rmsnorm
# expect: pass
# style: layer_norm's variance in one pass over data shifted by each vector's first entry (the shifted-data
#        algorithm), which keeps the digits a plain E[x^2] - E[x]^2 loses; loops over the leading axes
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    return x / np.sqrt(np.mean(np.square(x), axis=-1, keepdims=True) + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    for idx in np.ndindex(*x.shape[:-1]):
        v = x[idx]
        k = v[0]
        shifted = v - k
        s, s2, n = shifted.sum(), (shifted * shifted).sum(), v.size
        mean = k + s / n
        var = max((s2 - s * s / n) / n, 0.0)
        out[idx] = (v - mean) / np.sqrt(var + eps) * weight + bias
    return out
