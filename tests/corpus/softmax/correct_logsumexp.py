# attnprep: softmax
# expect: pass
# style: log-sum-exp, then exponentiate
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    m = np.max(z, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(z - m), axis=axis, keepdims=True))
    return np.exp(z - lse)
