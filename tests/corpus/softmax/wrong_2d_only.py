# attnprep: softmax
# expect: fail shape axis
# diagnosis: index-broadcast-2d
# mistake: broadcasts the row max and sum back with [:, None], which only works for 2-D input and the last axis
# must-pass: stable
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=axis)[:, None])
    return e / e.sum(axis=axis)[:, None]
