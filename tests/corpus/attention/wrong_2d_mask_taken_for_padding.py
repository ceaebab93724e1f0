# attnprep: attention
# expect: fail mask
# must-pass: shape batch-dims sum-to-one permutation-equivariant input-unchanged
# mistake: reads any 2-D mask of shape (B, T_k) as a (B, 1, ..., 1, T_k) padding mask: a (T_q, T_k) mask whose T_q equals B is applied per sequence
import numpy as np

def attention(q, k, v, mask=None):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        # also accept a (B, T_k) padding mask: expand it to (B, 1, ..., 1, T_k)
        if q.ndim >= 3 and mask.ndim == 2 and mask.shape == (q.shape[0], k.shape[-2]):
            mask = mask.reshape(mask.shape[0], *([1] * (q.ndim - 2)), mask.shape[1])
        s = np.where(mask, -np.inf, s)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ v
