# attnprep: softmax
# expect: fail input-unchanged
# diagnosis: modifies-input-large
# must-pass: shape sum-to-one non-negative matches-reference stable masked-entries axis
# mistake: saves memory on big arrays by writing into the input (np.subtract(..., out=z)); small ones are copied
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z)
    if z.dtype != np.float64:
        z = z.astype(np.float64)
    buf = z if z.size >= 1 << 16 else z.copy()
    np.subtract(buf, buf.max(axis=axis, keepdims=True), out=buf)
    np.exp(buf, out=buf)
    buf /= buf.sum(axis=axis, keepdims=True)
    return buf
