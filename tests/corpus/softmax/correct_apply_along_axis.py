# attnprep: softmax
# expect: pass
# style: a 1-D helper applied with np.apply_along_axis; result returned as nested Python lists
import numpy as np


def _row_softmax(row):
    top = row.max()
    e = np.exp(row - top)
    return e / e.sum()


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=float)
    return np.apply_along_axis(_row_softmax, axis, z).tolist()
