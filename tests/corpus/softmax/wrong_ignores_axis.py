# attnprep: softmax
# expect: fail axis
# mistake: accepts `axis` but always normalises along the last axis
# diagnosis: ignores-axis
# must-pass: stable
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
