# attnprep: softmax
# expect: pass
# style: numpy.ma: -inf entries masked out, the max and the sum over the unmasked ones, filled with 0.0
import numpy as np


def softmax(z, axis=-1, **kwargs):
    z = np.asarray(z, dtype=np.float64)
    m = np.ma.masked_equal(z, -np.inf)
    m = np.ma.masked_invalid(m)
    shifted = m - m.max(axis=axis, keepdims=True)
    e = np.ma.exp(shifted)
    out = e / e.sum(axis=axis, keepdims=True)
    return np.ma.filled(out, 0.0)
