# attnprep: softmax
# expect: pass
# style: long slices in blocks of 4,096 with a running maximum and a running sum rescaled as the maximum grows (the online softmax), then one pass to normalise
import numpy as np

BLOCK = 4096


def softmax(z, axis=-1):
    x = np.moveaxis(np.asarray(z, dtype=np.float64), axis, -1)
    n = x.shape[-1]
    m = np.full(x.shape[:-1] + (1,), -np.inf)
    total = np.zeros(x.shape[:-1] + (1,))
    for i in range(0, n, BLOCK):
        part = x[..., i:i + BLOCK]
        new_m = np.maximum(m, part.max(axis=-1, keepdims=True))
        total = total * np.exp(m - new_m) + np.exp(part - new_m).sum(axis=-1, keepdims=True)
        m = new_m
    return np.moveaxis(np.exp(x - m) / total, -1, axis)
