# attnprep: softmax
# expect: fail stable
# diagnosis: shift-by-min
# must-pass: shape sum-to-one non-negative axis input-unchanged
# mistake: subtracts each slice's minimum instead of its maximum, so a wide slice still overflows
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    finite = np.where(np.isfinite(z), z, np.inf)
    e = np.exp(z - finite.min(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
