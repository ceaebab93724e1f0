# attnprep: rmsnorm
# expect: fail last-axis shape
# must-pass: zero-input weight-bias
# mistake: reduces over axis=1, which is the last axis only for 2-D (T, d) inputs
# diagnosis: norm-axis-one
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    ms = np.mean(x ** 2, axis=1, keepdims=True)
    return x / np.sqrt(ms + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mu = np.mean(x, axis=1, keepdims=True)
    var = np.var(x, axis=1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias
