# attnprep: softmax
# expect: pass
# style: promotes float32 to float64, log-sum-exp with keepdims, returns the input's float dtype
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z)
    dtype = z.dtype if z.dtype in (np.float32, np.float64) else np.float64
    x = z.astype(np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return np.exp(x - lse).astype(dtype)
