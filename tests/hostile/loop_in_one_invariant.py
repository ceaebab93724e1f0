# attnprep: softmax
# expect-status: timeout
# expect-invariant: axis=timeout shape=pass matches-reference=pass
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    while axis == -3:  # only the axis check passes axis=-3: the loop sits in that one invariant
        pass
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
