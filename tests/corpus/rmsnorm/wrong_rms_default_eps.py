# attnprep: rmsnorm
# expect: fail eps
# must-pass: unit-rms
# mistake: rms_norm's default eps copied from LayerNorm (1e-5 instead of 1e-6)
# diagnosis: rms-default-eps
import numpy as np


def rms_norm(x, weight, eps=1e-5):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    c = x - x.mean(axis=-1, keepdims=True)
    return c / np.sqrt(np.mean(c * c, axis=-1, keepdims=True) + eps) * weight + bias
