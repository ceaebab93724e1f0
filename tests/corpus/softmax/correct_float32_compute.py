# attnprep: softmax
# expect: pass
# style: casts to float32 "for speed" and returns float32, so it is judged at float32 precision (a float64 result
#        computed this way would be wrong: see wrong_float32_large.py)
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float32)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
