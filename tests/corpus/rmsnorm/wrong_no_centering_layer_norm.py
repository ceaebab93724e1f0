# attnprep: rmsnorm
# expect: fail layer-norm-moments zero-input
# must-pass: eps last-axis
# mistake: layer_norm divides by the standard deviation but never subtracts the mean
# diagnosis: layer-norm-no-centring
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    ms = np.mean(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(ms + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    var = x.var(axis=-1, keepdims=True)
    return x / np.sqrt(var + eps) * weight + bias
