# attnprep: rmsnorm
# expect: fail weight-bias matches-reference
# must-pass: eps last-axis layer-norm-moments unit-rms no-centering
# mistake: layer_norm forgets to add the bias
# diagnosis: layer-norm-no-bias
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    c = x - x.mean(axis=-1, keepdims=True)
    return c / np.sqrt(np.mean(c * c, axis=-1, keepdims=True) + eps) * weight
