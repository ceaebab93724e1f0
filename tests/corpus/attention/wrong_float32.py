# attnprep: attention
# expect: fail matches-reference
# diagnosis: float32-arithmetic
# mistake: casts q, k and v to float32 to save memory, losing the sixth significant digit
# must-pass: scale batch-dims cross-attention mask permutation-equivariant
import numpy as np


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    scores = q @ np.swapaxes(k, -1, -2) / np.float32(np.sqrt(q.shape[-1]))
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v
