# attnprep: rmsnorm
# expect: fail weight-bias
# must-pass: eps last-axis no-centering zero-input layer-norm-moments
# mistake: rms_norm scales x by the weight first and then normalises the product, so the weight cancels out
# diagnosis: rms-weight-before-norm
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    y = np.asarray(x, dtype=np.float64) * weight
    return y / np.sqrt(np.mean(y * y, axis=-1, keepdims=True) + eps)


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias
