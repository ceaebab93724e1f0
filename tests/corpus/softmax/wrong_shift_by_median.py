# attnprep: softmax
# expect: fail stable
# diagnosis: shift-by-median
# must-pass: shape sum-to-one non-negative matches-reference axis input-unchanged
# mistake: shifts each slice by its median ("robust to one outlier"), so an entry far above the median still
#          overflows exp
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    finite = np.where(np.isfinite(z), z, np.nan)
    e = np.exp(z - np.nanmedian(finite, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
