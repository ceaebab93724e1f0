# attnprep: rmsnorm
# expect: fail weight-bias
# must-pass: eps last-axis no-centering
# mistake: rms_norm forgets to multiply by the learned weight
# diagnosis: rms-norm-forgets-weight
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    ms = np.mean(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(ms + eps)


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias
