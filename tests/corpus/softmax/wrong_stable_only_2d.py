# attnprep: softmax
# expect: fail stable
# diagnosis: stable-only-2d
# must-pass: shape sum-to-one non-negative matches-reference axis input-unchanged
# mistake: subtracts the row maximum only on the 2-D, last-axis path it was tested on; 1-D, batched input and other
#          axes go through the naive formula and overflow at large scores
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    if z.ndim == 2 and axis in (-1, 1):
        z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)
