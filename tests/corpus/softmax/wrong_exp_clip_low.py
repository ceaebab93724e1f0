# attnprep: softmax
# expect: fail masked-entries
# diagnosis: clips-shifted-scores
# must-pass: shape sum-to-one non-negative axis input-unchanged
# mistake: clips the shifted scores at -700 to "avoid underflow", so -inf entries come out as exp(-700), not exactly 0
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    s = np.clip(z - z.max(axis=axis, keepdims=True), -700.0, None)
    e = np.exp(s)
    return e / e.sum(axis=axis, keepdims=True)
