# attnprep: softmax
# expect: pass
# style: a pure-Python path for 1-D input (math.exp over a list, max first), NumPy for everything else
import math

import numpy as np


def _softmax_list(values):
    top = max(values)
    exps = [0.0 if v == -math.inf else math.exp(v - top) for v in values]
    total = math.fsum(exps)
    return [e / total for e in exps]


def softmax(z, axis=-1):
    z = np.asarray(z)
    if z.ndim == 1:
        return np.array(_softmax_list([float(v) for v in z]), dtype=np.float64)
    z = z.astype(np.float64)
    shifted = z - z.max(axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)
