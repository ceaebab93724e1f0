# attnprep: rmsnorm
"""Reference solution: RMSNorm and LayerNorm over the last axis."""

import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    # One mean square per vector; keepdims leaves a trailing axis of size 1
    # so the division broadcasts over the d features of each vector.
    ms = np.mean(x * x, axis=-1, keepdims=True)
    # eps goes inside the square root: an all-zero vector gives 0 / sqrt(eps) = 0.
    return x / np.sqrt(ms + eps) * np.asarray(weight, dtype=np.float64)


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mu = np.mean(x, axis=-1, keepdims=True)
    centred = x - mu  # a new array: the caller's x is untouched
    # Population variance: divide by d (np.var's default ddof=0), not d - 1.
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(var + eps) * np.asarray(weight, dtype=np.float64) + np.asarray(bias, dtype=np.float64)
