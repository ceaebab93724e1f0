# attnprep: rmsnorm
# expect: fail input-unchanged
# mistake: divides the caller's array in place (x /= rms)
# diagnosis: rms-in-place
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x /= np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    x *= weight
    return x


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias
