# attnprep: rmsnorm
# expect: pass
# style: np.linalg.norm for the RMS, np.std-free LayerNorm via the norm of the centred vector
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=float)
    d = x.shape[-1]
    rms_sq = np.linalg.norm(x, axis=-1, keepdims=True) ** 2 / d
    return weight * x / np.sqrt(rms_sq + eps)


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=float)
    d = x.shape[-1]
    c = x - x.mean(axis=-1, keepdims=True)
    var = np.linalg.norm(c, axis=-1, keepdims=True) ** 2 / d
    return weight * c / np.sqrt(var + eps) + bias
