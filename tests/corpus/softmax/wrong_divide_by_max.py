# attnprep: softmax
# expect: fail sum-to-one matches-reference
# diagnosis: divide-by-max
# mistake: normalises by the largest exponential instead of the sum
# must-pass: stable masked-entries
import numpy as np


def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.max(axis=axis, keepdims=True)
