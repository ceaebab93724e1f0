# attnprep: attention
# expect: fail mask
# must-pass: shape batch-dims sum-to-one permutation-equivariant input-unchanged
# mistake: reads mask.shape[-2] to validate it, so a (T_k,) mask, which broadcasts, raises IndexError
import numpy as np

def attention(q, k, v, mask=None):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        Tq, Tk = s.shape[-2:]
        if mask.shape[-2] not in (1, Tq) or mask.shape[-1] not in (1, Tk):
            raise ValueError(f"mask {mask.shape} does not fit scores {s.shape}")
        s = np.where(mask, -np.inf, s)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ v
