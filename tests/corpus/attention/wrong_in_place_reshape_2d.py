# attnprep: attention
# expect: fail input-unchanged
# diagnosis: scale-folded-in-place
# mistake: lifts 2-D inputs to 3-D with a view and then scales q in place, which changes the caller's q
# must-pass: stable scale matches-reference
import numpy as np


def attention(q, k, v, mask=None):
    if q.ndim == 2:
        q, k, v = q[None], k[None], v[None]
        return attention(q, k, v, mask)[0]
    q /= np.sqrt(q.shape[-1])
    s = q @ np.swapaxes(k, -1, -2)
    if mask is not None:
        s = np.where(mask, -np.inf, s)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ v
