# attnprep: rmsnorm
# expect: fail last-axis unit-rms
# must-pass: eps no-centering zero-input
# mistake: normalises over the first axis (across positions) instead of the features
# diagnosis: rms-norm-wrong-axis
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    ms = np.mean(x * x, axis=0, keepdims=True)
    return x / np.sqrt(ms + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(axis=0, keepdims=True)
    var = x.var(axis=0, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias
