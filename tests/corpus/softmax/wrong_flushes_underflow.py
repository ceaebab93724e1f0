# attnprep: softmax
# expect: fail matches-reference
# diagnosis: flushes-tiny-probabilities
# mistake: sets probabilities below 1e-15 to exactly zero ("they are underflow noise anyway") and renormalises, so the tail of every wide slice is lost
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    p = e / e.sum(axis=axis, keepdims=True)
    p = np.where(p < 1e-15, 0.0, p)
    return p / p.sum(axis=axis, keepdims=True)
