# attnprep: rmsnorm
# expect: fail unit-rms
# must-pass: eps last-axis no-centering
# diagnosis: rms-l2-norm
# mistake: divides by the L2 norm sqrt(sum(x**2) + eps) instead of the RMS (forgets to divide by d)
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    ss = np.sum(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(ss + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    c = x - x.mean(axis=-1, keepdims=True)
    return c / np.sqrt(np.mean(c * c, axis=-1, keepdims=True) + eps) * weight + bias
