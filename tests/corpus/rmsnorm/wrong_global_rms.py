# attnprep: rmsnorm
# expect: fail last-axis unit-rms scale-invariant
# must-pass: eps no-centering zero-input
# mistake: one RMS for the whole array instead of one per vector
# diagnosis: rms-norm-whole-array
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    return x / np.sqrt(np.mean(x ** 2) + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    return (x - x.mean()) / np.sqrt(x.var() + eps) * weight + bias
