# attnprep: softmax
# expect: fail shape axis matches-reference
# mistake: reductions without keepdims do not broadcast back along the axis
# diagnosis: missing-keepdims
# must-pass: stable
import numpy as np


def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis))
    return e / e.sum(axis=axis)
