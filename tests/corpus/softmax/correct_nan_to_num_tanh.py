# attnprep: softmax
# expect: pass
# style: -inf replaced via np.nan_to_num(neginf=-np.finfo(float).max) on a copy, sum through np.add.reduce, multiplication by the reciprocal
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z)
    was_masked = np.isneginf(z)
    x = np.nan_to_num(z.astype(np.float64), neginf=-np.finfo(np.float64).max)
    x = x - np.amax(x, axis=axis, keepdims=True)
    e = np.exp(x)
    e[was_masked] = 0.0
    return e * np.reciprocal(np.add.reduce(e, axis=axis, keepdims=True))
