# attnprep: softmax
# expect: pass
# style: log-sum-exp in the input's own precision (float32 stays float32), then one exp
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z)
    if z.dtype != np.float32:
        z = z.astype(np.float64)
    m = z.max(axis=axis, keepdims=True)
    lse = m + np.log(np.exp(z - m).sum(axis=axis, keepdims=True))
    return np.exp(z - lse)
