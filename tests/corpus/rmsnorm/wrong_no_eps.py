# attnprep: rmsnorm
# expect: fail zero-input eps
# mistake: leaves eps out entirely, so an all-zero vector becomes 0/0
# diagnosis: no-eps layer-norm-no-eps
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    rms = np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True))
    return x / rms * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / x.std(axis=-1, keepdims=True) * weight + bias
