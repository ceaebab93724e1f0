# attnprep: rmsnorm
# expect: fail shape
# must-pass: no-centering
# mistake: restores the reduced axis with [:, None], which only works for 2-D (T, d) input
# diagnosis: norm-2d-only
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    ms = np.mean(x * x, axis=-1)
    return x / np.sqrt(ms + eps)[:, None] * weight


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mu = np.mean(x, axis=-1)[:, None]
    var = np.var(x, axis=-1)[:, None]
    return (x - mu) / np.sqrt(var + eps) * weight + bias
