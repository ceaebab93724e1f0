# attnprep: rmsnorm
# expect: pass
# style: multiplies by a reciprocal square root (rsqrt), accepts extra keyword arguments, returns nested lists
import numpy as np


def rms_norm(x, weight, eps=1e-6, **kwargs):
    x = np.asarray(x, dtype=float)
    inv = (np.square(x).mean(axis=-1, keepdims=True) + eps) ** -0.5
    return (x * inv * np.asarray(weight)).tolist()


def layer_norm(x, weight, bias, eps=1e-5, **kwargs):
    x = np.asarray(x, dtype=float)
    mu = x.mean(axis=-1, keepdims=True)
    inv = (x.var(axis=-1, keepdims=True) + eps) ** -0.5
    return ((x - mu) * inv * weight + bias).tolist()
