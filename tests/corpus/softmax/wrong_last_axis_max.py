# attnprep: softmax
# expect: fail axis stable
# diagnosis: max-along-last-axis
# must-pass: shape sum-to-one non-negative masked-entries input-unchanged
# mistake: normalises along `axis` but subtracts the maximum along the last axis, which is not constant along `axis`
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
