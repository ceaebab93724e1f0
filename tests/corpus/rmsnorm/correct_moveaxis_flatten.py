# attnprep: rmsnorm
# expect: pass
# style: flatten to (N, d), reduce with np.matmul and np.add.reduce, np.var/np.std-free, np.reciprocal, reshape back
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    flat = x.reshape(-1, d)
    ms = np.matmul(flat * flat, np.full(d, 1.0 / d))
    out = flat * np.reciprocal(np.sqrt(ms + eps))[:, None]
    return (out * weight).reshape(x.shape)


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    flat = x.reshape(-1, d)
    mu = np.add.reduce(flat, axis=1) / d
    c = flat - mu[:, None]
    var = np.add.reduce(c * c, axis=1) / d
    out = c / np.sqrt(var + eps)[:, None]
    return np.asarray(out * weight + bias).reshape(x.shape)
