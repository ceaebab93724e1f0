# attnprep: rmsnorm
# expect: pass
# style: gain applied to x before the division, mean square by einsum, reciprocal square root; float64 throughout
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    ms = np.einsum("...d,...d->...", x, x)[..., None] / d
    inv_rms = np.reciprocal(np.sqrt(ms + eps))
    return (np.asarray(weight, dtype=np.float64) * x) * inv_rms


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    c = x - x.mean(axis=-1, keepdims=True)
    inv_std = 1.0 / np.sqrt(np.einsum("...d,...d->...", c, c)[..., None] / x.shape[-1] + eps)
    return weight * c * inv_std + bias
