# attnprep: softmax
# expect: fail stable masked-entries
# mistake: no max subtraction, so exp overflows at 1e4
# diagnosis: no-max-subtraction
import numpy as np


def softmax(z, axis=-1):
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)
