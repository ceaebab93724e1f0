# attnprep: softmax
# expect: fail input-unchanged
# diagnosis: modifies-input
# mistake: subtracts the max in place, damaging the caller's array
# must-pass: stable
import numpy as np


def softmax(z, axis=-1):
    z -= z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)
