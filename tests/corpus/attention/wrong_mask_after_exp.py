# attnprep: attention
# expect: fail stable
# mistake: multiplies exp(scores - row max) by the open keys; the max includes blocked keys, so a dominant blocked key underflows the row to 0/0
# diagnosis: mask-after-exp
# must-pass: scale
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    if mask is not None:
        e = e * ~np.asarray(mask, dtype=bool)
    return e / e.sum(axis=-1, keepdims=True) @ v
