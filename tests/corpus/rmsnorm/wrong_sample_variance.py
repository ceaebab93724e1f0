# attnprep: rmsnorm
# expect: fail layer-norm-moments
# must-pass: eps last-axis
# mistake: layer_norm uses the sample variance (ddof=1) instead of the population variance
# diagnosis: sample-variance
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    ms = np.mean(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(ms + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True, ddof=1)
    return (x - mu) / np.sqrt(var + eps) * weight + bias
