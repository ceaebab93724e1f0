# attnprep: softmax
# expect: fail stable masked-entries
# diagnosis: shift-by-mean
# mistake: subtracts each slice's mean instead of its maximum, so a wide slice still overflows
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.mean(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
