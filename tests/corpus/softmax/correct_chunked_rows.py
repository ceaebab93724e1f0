# attnprep: softmax
# expect: pass
# style: moves the axis last, flattens to rows and works through them in blocks of 4,096 rows (bounded memory)
import numpy as np

BLOCK = 4096


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    moved = np.moveaxis(z, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    out = np.empty_like(rows)
    for start in range(0, rows.shape[0], BLOCK):
        block = rows[start:start + BLOCK]
        e = np.exp(block - block.max(axis=1, keepdims=True))
        out[start:start + BLOCK] = e / e.sum(axis=1, keepdims=True)
    return np.moveaxis(out.reshape(moved.shape), -1, axis)
