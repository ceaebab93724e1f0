# attnprep: rmsnorm
# expect: fail matches-reference
# must-pass: shape unit-rms no-centering scale-invariant zero-input eps layer-norm-moments weight-bias last-axis input-unchanged
# mistake: einsum for the sums and a one-pass variance E[x^2] - E[x]^2 (clamped at 0): when a vector's mean is 1e6
#          times its spread or more, the subtraction cancels away the variance's digits
# diagnosis: one-pass-variance
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    out = np.array(x, dtype=np.float64, copy=True)
    d = out.shape[-1]
    ms = np.einsum("...i,...i->...", out, out)[..., None] / d
    out *= 1.0 / np.sqrt(ms + eps)
    out *= weight
    return out


def layer_norm(x, weight, bias, eps=1e-5):
    out = np.array(x, dtype=np.float64, copy=True)
    d = out.shape[-1]
    mean = np.einsum("...i->...", out)[..., None] / d
    mean_sq = np.einsum("...i,...i->...", out, out)[..., None] / d
    var = np.maximum(mean_sq - mean * mean, 0.0)
    out -= mean
    out /= np.sqrt(var + eps)
    return out * weight + bias
