# attnprep: softmax
# expect: fail matches-reference
# diagnosis: float32-arithmetic
# must-pass: shape sum-to-one non-negative stable masked-entries axis input-unchanged
# mistake: halves the memory of big score tensors by computing in float32 above 32k entries, then casts back, so
#          large inputs lose half their digits although the result is float64
import numpy as np

BIG = 32_768


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    work = z.astype(np.float32) if z.size > BIG else z
    e = np.exp(work - work.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float64)
