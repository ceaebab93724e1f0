# attnprep: softmax
# expect: fail masked-entries
# diagnosis: unmasks-inf
# mistake: "cleans" -inf to 0 before the softmax, unmasking the blocked positions
# must-pass: stable
import numpy as np


def softmax(z, axis=-1):
    z = np.where(np.isinf(z), 0.0, z)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
