# attnprep: softmax
# expect: fail matches-reference
# diagnosis: float32-arithmetic
# must-pass: masked-entries
# mistake: casts to float32 "for speed", so float64 inputs lose half their digits (low-precision arithmetic)
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float32)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
