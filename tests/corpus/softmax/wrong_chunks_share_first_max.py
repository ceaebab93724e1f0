# attnprep: softmax
# expect: fail stable
# mistake: works through a long slice in blocks of 4,096 to keep the temporaries small, but shifts every block by the first block's maximum, so a larger score later in the slice overflows
import numpy as np

BLOCK = 4096


def softmax(z, axis=-1):
    x = np.moveaxis(np.asarray(z, dtype=np.float64), axis, -1)
    n = x.shape[-1]
    if n <= BLOCK:
        e = np.exp(x - x.max(axis=-1, keepdims=True))
    else:
        first = x[..., :BLOCK].max(axis=-1, keepdims=True)
        e = np.concatenate([np.exp(x[..., i:i + BLOCK] - first) for i in range(0, n, BLOCK)], axis=-1)
    return np.moveaxis(e / e.sum(axis=-1, keepdims=True), -1, axis)
