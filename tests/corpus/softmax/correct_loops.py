# attnprep: softmax
# expect: pass
# style: plain Python loops over every slice, math.exp
import math

import numpy as np


def _softmax_1d(values):
    m = max(values)
    exps = [math.exp(v - m) for v in values]
    total = sum(exps)
    return [e / total for e in exps]


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    moved = np.moveaxis(z, axis, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    out = np.empty_like(flat)
    for i in range(flat.shape[0]):
        out[i] = _softmax_1d(list(flat[i]))
    return np.moveaxis(out.reshape(moved.shape), -1, axis)
