# attnprep: softmax
# expect: fail sum-to-one axis matches-reference
# mistake: normalises over axis 0 whatever axis is asked for
# diagnosis: softmax-wrong-axis
# must-pass: stable masked-entries
import numpy as np


def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)
