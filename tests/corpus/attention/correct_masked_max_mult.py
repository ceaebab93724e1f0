# attnprep: attention
# expect: pass
# style: max taken over the open keys only, exp of the raw scores multiplied by the open-key indicator (no -inf at all)
import numpy as np


def attention(q, k, v, mask=None):
    s = q @ np.swapaxes(k, -2, -1) / np.sqrt(k.shape[-1])
    if mask is None:
        open_ = np.ones(s.shape, dtype=bool)
    else:
        open_ = np.broadcast_to(~np.asarray(mask, dtype=bool), s.shape)
    row_max = np.max(s, axis=-1, where=open_, initial=-np.inf, keepdims=True)
    e = np.exp(np.where(open_, s - row_max, -np.inf))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v
