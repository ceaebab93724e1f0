# attnprep: softmax
# expect: fail masked-entries
# must-pass: shape sum-to-one non-negative input-unchanged
# mistake: swaps -inf for -1e4 when axis is not the last one only
import numpy as np

def softmax(z, axis=-1):
    if axis not in (-1, z.ndim - 1):
        z = np.where(np.isneginf(z), -1e4, z)   # masked_fill before the transpose
        zt = np.swapaxes(z, axis, -1)
        e = np.exp(zt - zt.max(axis=-1, keepdims=True))
        return np.swapaxes(e / e.sum(axis=-1, keepdims=True), axis, -1)
    m = z.max(axis=axis, keepdims=True)
    e = np.exp(z - m)
    return e / e.sum(axis=axis, keepdims=True)
