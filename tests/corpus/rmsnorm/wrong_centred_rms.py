# attnprep: rmsnorm
# expect: fail no-centering
# must-pass: eps last-axis unit-rms
# mistake: rms_norm subtracts the mean first, which makes it a LayerNorm without bias
# diagnosis: rms-norm-centres
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = x - x.mean(axis=-1, keepdims=True)
    ms = np.mean(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(ms + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias
