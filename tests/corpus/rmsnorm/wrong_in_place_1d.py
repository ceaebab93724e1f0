# attnprep: rmsnorm
# expect: fail input-unchanged
# must-pass: shape unit-rms no-centering scale-invariant zero-input eps layer-norm-moments weight-bias last-axis matches-reference
# mistake: a single vector (1-D x) is normalised in place with /= and *=, which rewrites the caller's array;
#          batches go through a copy
# diagnosis: rms-in-place
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    if x.ndim == 1:
        x /= np.sqrt(np.mean(x * x) + eps)
        x *= weight
        return x
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    c = x - mu
    return c / np.sqrt(np.mean(c * c, axis=-1, keepdims=True) + eps) * weight + bias
