# attnprep: rmsnorm
# expect: fail unit-rms eps
# must-pass: last-axis no-centering
# mistake: divides by the mean absolute value instead of the root mean square
# diagnosis: rms-mean-abs
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    scale = np.mean(np.abs(x), axis=-1, keepdims=True)
    return x / (scale + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias
