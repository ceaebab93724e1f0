# attnprep: softmax
# expect: fail matches-reference
# diagnosis: floor-on-probabilities
# mistake: adds 1e-12 to every probability "so a later log never sees 0" and renormalises: harmless-looking, but every tiny probability is now wrong by orders of magnitude
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    p = e / e.sum(axis=axis, keepdims=True) + 1e-12
    return p / p.sum(axis=axis, keepdims=True)
