# attnprep: rmsnorm
# expect: fail weight-bias
# must-pass: eps last-axis zero-input
# mistake: layer_norm adds the bias before multiplying by the weight: (x_hat + bias) * weight
# diagnosis: layer-norm-bias-before-weight
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    x_hat = (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    return (x_hat + bias) * weight
