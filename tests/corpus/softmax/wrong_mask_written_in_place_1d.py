# attnprep: softmax
# expect: fail input-unchanged
# must-pass: shape sum-to-one non-negative
# mistake: writes a finite number into the caller's -inf entries on the 1-D path
import numpy as np

def softmax(z, axis=-1):
    if z.ndim == 1:
        # vector fast path
        mask = np.isneginf(z)
        z[mask] = -1e300
        e = np.exp(z - z.max())
        e[mask] = 0.0
        return e / e.sum()
    m = z.max(axis=axis, keepdims=True)
    e = np.exp(z - m)
    return e / e.sum(axis=axis, keepdims=True)
