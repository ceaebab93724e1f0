# attnprep: rmsnorm
# expect: fail unit-rms scale-invariant
# must-pass: eps last-axis no-centering
# mistake: divides by the mean square, forgetting the square root
# diagnosis: rms-no-sqrt
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    ms = np.mean(x * x, axis=-1, keepdims=True)
    return x / (ms + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias
