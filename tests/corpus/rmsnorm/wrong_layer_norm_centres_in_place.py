# attnprep: rmsnorm
# expect: fail input-unchanged
# mistake: layer_norm centres the caller's x in place (x -= mean) before normalising
# diagnosis: layer-norm-centres-in-place
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    x -= x.mean(axis=-1, keepdims=True)
    var = np.mean(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(var + eps) * weight + bias
