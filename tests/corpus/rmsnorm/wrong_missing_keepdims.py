# attnprep: rmsnorm
# expect: fail last-axis shape
# must-pass: eps input-unchanged no-centering weight-bias zero-input
# mistake: reduces without keepdims, which only broadcasts for 1-D or square inputs
# diagnosis: missing-keepdims
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    ms = np.mean(x * x, axis=-1)
    return x / np.sqrt(ms + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mu = np.mean(x, axis=-1)
    var = np.var(x, axis=-1)
    return (x - mu) / np.sqrt(var + eps) * weight + bias
