# attnprep: rmsnorm
# expect: fail layer-norm-moments
# must-pass: last-axis weight-bias no-centering unit-rms scale-invariant
# mistake: layer_norm subtracts the mean but divides by the RMS of the raw x, sqrt(mean(x**2) + eps), not by sqrt(var + eps)
# diagnosis: layer-norm-uncentred-rms
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight + bias
