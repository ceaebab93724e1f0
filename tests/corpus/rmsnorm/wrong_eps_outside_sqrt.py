# attnprep: rmsnorm
# expect: fail eps
# mistake: adds eps to the RMS, outside the square root
# diagnosis: eps-outside-sqrt layer-norm-eps-outside-sqrt
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    rms = np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True))
    return x / (rms + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    std = x.std(axis=-1, keepdims=True)
    return (x - mu) / (std + eps) * weight + bias
