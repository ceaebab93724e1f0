# attnprep: softmax
# expect: fail stable masked-entries
# diagnosis: shift-by-first
# mistake: shifts every slice by its first entry instead of its maximum; a later, larger entry still overflows
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    first = np.take(z, [0], axis=axis)
    e = np.exp(z - first)
    return e / e.sum(axis=axis, keepdims=True)
