# attnprep: softmax
# expect: fail input-unchanged
# must-pass: shape sum-to-one non-negative
# mistake: writes into the caller's -inf entries through a swapaxes view when axis is not the last
import numpy as np

def softmax(z, axis=-1):
    if axis == -1 or axis == z.ndim - 1:
        m = z.max(axis=axis, keepdims=True)
        e = np.exp(z - m)
        return e / e.sum(axis=axis, keepdims=True)
    # other axes: work on the transposed view; clean the mask first
    zt = np.swapaxes(z, axis, -1)
    zt[np.isneginf(zt)] = -1e300
    e = np.exp(zt - zt.max(axis=-1, keepdims=True))
    e[zt == -1e300] = 0.0
    return np.swapaxes(e / e.sum(axis=-1, keepdims=True), axis, -1)
