# attnprep: softmax
# expect: fail sum-to-one matches-reference
# mistake: divides by the sum of the whole array instead of each slice
# diagnosis: sum-over-everything
# must-pass: stable masked-entries
import numpy as np


def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum()
