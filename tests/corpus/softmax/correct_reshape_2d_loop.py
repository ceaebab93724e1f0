# attnprep: softmax
# expect: pass
# style: moves the axis last and flattens to 2-D with reshape, a Python loop over the rows, np.divide with out=, tuple of lists not needed: returns a list for 1-D input
import numpy as np


def softmax(z, axis=-1):
    x = np.moveaxis(np.asarray(z, dtype=float), axis, -1)
    shape = x.shape
    rows = x.reshape(-1, shape[-1])
    out = np.empty_like(rows)
    for r in range(rows.shape[0]):
        row = rows[r]
        e = np.exp(row - row.max())
        np.divide(e, e.sum(), out=out[r])
    res = np.moveaxis(out.reshape(shape), -1, axis)
    return res.tolist() if res.ndim == 1 else res
