# attnprep: rmsnorm
# expect: pass
# style: einsum for the sums, the variance from the centred vector (two passes), in-place work on a private copy
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
    out -= np.einsum("...i->...", out)[..., None] / d
    var = np.einsum("...i,...i->...", out, out)[..., None] / d
    out /= np.sqrt(var + eps)
    return out * weight + bias
