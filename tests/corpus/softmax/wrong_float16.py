# attnprep: softmax
# expect: fail matches-reference
# diagnosis: float16-arithmetic
# must-pass: masked-entries
# mistake: computes in float16 to save memory; three significant digits are not enough
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float16)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float64)
