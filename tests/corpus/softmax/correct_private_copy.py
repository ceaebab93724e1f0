# attnprep: softmax
# expect: pass
# style: in-place arithmetic on a private copy; -inf replaced by -1e9 first
import numpy as np


def softmax(z, axis=-1):
    x = np.array(z, dtype=np.float64, copy=True)
    x[np.isneginf(x)] = -1e9
    x -= x.max(axis=axis, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=axis, keepdims=True)
    return x
