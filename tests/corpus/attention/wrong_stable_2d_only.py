# attnprep: attention
# expect: fail stable
# diagnosis: stable-only-2d
# mistake: the plain 2-D path subtracts the row maximum, the batched path (a loop-free einsum) forgets to
# must-pass: scale mask batch-dims sum-to-one matches-reference
import numpy as np


def attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    if q.ndim == 2:
        s = q @ k.T / np.sqrt(d_k)
        if mask is not None:
            s = np.where(mask, -np.inf, s)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True) @ v
    s = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(d_k)
    if mask is not None:
        s = np.where(mask, -np.inf, s)
    e = np.exp(s)
    return np.einsum("...qk,...kd->...qd", e / e.sum(axis=-1, keepdims=True), v)
