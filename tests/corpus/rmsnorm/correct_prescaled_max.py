# attnprep: rmsnorm
# expect: pass
# style: overflow-safe: divides each vector by its max |x| first and rescales eps to match; np.std for LayerNorm
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    m = np.max(np.abs(x), axis=-1, keepdims=True)
    safe = np.where(m > 0, m, 1.0)
    s = x / safe
    # x / sqrt(mean(x^2) + eps) == s / sqrt(mean(s^2) + eps / m^2)
    denom = np.sqrt(np.mean(s * s, axis=-1, keepdims=True) + eps / safe**2)
    return s / denom * weight


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    std = np.sqrt(np.var(x, axis=-1, keepdims=True) + eps)
    return weight * (x - mean) / std + bias
