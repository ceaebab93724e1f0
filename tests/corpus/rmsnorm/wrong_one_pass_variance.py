# attnprep: rmsnorm
# expect: fail matches-reference
# must-pass: shape unit-rms no-centering scale-invariant zero-input eps layer-norm-moments weight-bias last-axis input-unchanged
# mistake: the textbook shortcut var = mean(x**2) - mean(x)**2, which cancels catastrophically when the mean is
#          far larger than the spread (activations with a large common offset)
# diagnosis: one-pass-variance
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = (x**2).mean(axis=-1, keepdims=True) - mean**2
    return (x - mean) / np.sqrt(var + eps) * weight + bias
