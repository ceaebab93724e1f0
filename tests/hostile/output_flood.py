# attnprep: softmax
# expect-status: pass
import sys

sys.stdout.write("x" * 150_000_000)
sys.stderr.write("y" * 150_000_000)
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
