# attnprep: softmax
# expect: pass
# style: moves the axis last, -inf replaced by np.finfo(float).min, einsum for the sum, divide by reciprocal
import numpy as np


def softmax(z, axis=-1):
    x = np.moveaxis(np.array(z, dtype=np.float64), axis, -1)
    x = np.where(np.isneginf(x), np.finfo(np.float64).min, x)
    x = x - np.amax(x, axis=-1)[..., np.newaxis]
    e = np.exp(x)
    inv = 1.0 / np.einsum("...i->...", e)
    return np.moveaxis(e * inv[..., None], -1, axis)
