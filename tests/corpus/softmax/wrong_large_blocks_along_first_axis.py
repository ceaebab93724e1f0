# attnprep: softmax
# expect: fail axis
# must-pass: matches-reference stable masked-entries input-unchanged sum-to-one
# mistake: splits big arrays into blocks of 8 along axis 0, so along axis 0 each block is normalised on its own
import numpy as np


def _one(block, axis):
    e = np.exp(block - block.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    if z.ndim < 2 or z.size <= 50_000:
        return _one(z, axis)
    out = np.empty_like(z)
    for start in range(0, z.shape[0], 8):
        out[start:start + 8] = _one(z[start:start + 8], axis)
    return out
