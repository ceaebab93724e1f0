# attnprep: softmax
# expect: pass
# style: keeps the input's float dtype (float32 stays float32 end to end), exp2 with a log2(e) factor
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z)
    dtype = z.dtype if z.dtype in (np.float32, np.float64) else np.float64
    z = z.astype(dtype, copy=False)
    shifted = z - z.max(axis=axis, keepdims=True)
    e = np.exp2(shifted * dtype.type(np.log2(np.e)))
    return (e / e.sum(axis=axis, keepdims=True)).astype(dtype, copy=False)
