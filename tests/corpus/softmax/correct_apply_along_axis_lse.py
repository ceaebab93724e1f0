# attnprep: softmax
# expect: pass
# style: correct; per-slice float64 log-sum-exp via np.apply_along_axis and a small helper, probabilities as exp(z - lse)
# attnprep: softmax
"""Stable softmax."""

import numpy as np


def _softmax_1d(v):
    v = v.astype(np.float64)
    m = v.max()
    lse = m + np.log(np.sum(np.exp(v - m)))
    return np.exp(v - lse)


def softmax(z, axis=-1):
    z = np.asarray(z)
    if not np.issubdtype(z.dtype, np.floating):
        z = z.astype(np.float64)
    return np.apply_along_axis(_softmax_1d, axis, z).astype(z.dtype, copy=False)
