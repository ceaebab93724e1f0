# attnprep: attention
# expect: fail mask
# must-pass: shape batch-dims sum-to-one permutation-equivariant input-unchanged
# mistake: takes a 3-D mask with 4-D q for (B, T_q, T_k) and inserts a head axis; it broadcasts as (H, T_q, T_k)
import numpy as np

def attention(q, k, v, mask=None):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        if q.ndim == 4 and mask.ndim == 3:     # a (B, T_q, T_k) mask: same for every head
            mask = mask[:, None]
        s = np.where(mask, -np.inf, s)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ v
