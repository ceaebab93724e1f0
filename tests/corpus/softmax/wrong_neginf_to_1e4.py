# attnprep: softmax
# expect: fail masked-entries
# diagnosis: neginf-to-finite
# mistake: replaces -inf with -1e4 (a half-precision habit), which is not small enough next to scores near -1e4
# must-pass: stable
import numpy as np


def softmax(z, axis=-1):
    z = np.where(np.isneginf(z), -1e4, np.asarray(z, dtype=np.float64))
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
