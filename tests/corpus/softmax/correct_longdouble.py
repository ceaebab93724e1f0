# attnprep: softmax
# expect: pass
# style: computes in np.longdouble for extra headroom, returns float64; slices through axis normalised with % ndim
import numpy as np


def softmax(z, axis=-1, **unused):
    z = np.array(z, dtype=np.longdouble)
    axis = axis % z.ndim
    m = np.max(z, axis=axis, keepdims=True)
    e = np.exp(z - m)
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float64)
