# attnprep: softmax
# expect: fail stable masked-entries
# diagnosis: shift-by-max-magnitude
# mistake: subtracts the largest magnitude; a row of large negative scores underflows to 0/0
import numpy as np


def softmax(z, axis=-1):
    e = np.exp(z - np.abs(z).max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
