# attnprep: softmax
# expect: fail stable
# mistake: one global max for all rows; a row far below it underflows to 0/0
# diagnosis: global-max
import numpy as np


def softmax(z, axis=-1):
    e = np.exp(z - np.max(z))
    return e / e.sum(axis=axis, keepdims=True)
