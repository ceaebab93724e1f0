# attnprep: rmsnorm
# expect: pass
# style: layer_norm reuses rms_norm on the centred input (called by keyword), rsqrt via ** -0.5, extra kwargs
import numpy as np


def rms_norm(x, weight, eps=1e-6, **unused):
    x = np.asarray(x, dtype=np.float64)
    inv_rms = (np.square(x).mean(axis=-1, keepdims=True) + eps) ** -0.5
    return weight * (x * inv_rms)


def layer_norm(x, weight, bias, eps=1e-5, **unused):
    x = np.asarray(x, dtype=np.float64)
    centred = x - x.mean(axis=-1, keepdims=True)
    # LayerNorm is RMSNorm of the centred vector, plus a bias.
    return rms_norm(x=centred, weight=weight, eps=eps) + bias
