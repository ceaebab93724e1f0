# attnprep: rmsnorm
# expect: pass
# style: flattens leading dims to (N, d), sums of squares by a matmul with a ones vector, np.diag for the weight
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    flat = x.reshape(-1, d)
    ms = np.matmul(flat * flat, np.ones(d)) / d          # (N,)
    y = (flat / np.sqrt(ms + eps)[:, None]) @ np.diag(weight)
    return y.reshape(x.shape)


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    flat = x.reshape(-1, d)
    mu = np.dot(flat, np.full(d, 1.0 / d))
    c = flat - mu[:, None]
    var = np.dot(c * c, np.full(d, 1.0 / d))
    y = c / np.sqrt(var + eps)[:, None]
    return (y @ np.diag(weight) + bias).reshape(x.shape)
