# attnprep: softmax
# expect: fail input-unchanged
# diagnosis: modifies-input-1d
# must-pass: shape sum-to-one non-negative matches-reference stable masked-entries axis
# mistake: a fast path for a single vector that works in place (z -= max; np.exp(z, out=z)), so a 1-D caller's
#          scores are overwritten; arrays of two or more axes are copied
import numpy as np


def softmax(z, axis=-1):
    if isinstance(z, np.ndarray) and z.ndim == 1 and z.dtype == np.float64:
        z -= z.max()
        np.exp(z, out=z)
        z /= z.sum()
        return z
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
