# attnprep: attention
# expect: fail mask
# diagnosis: mask-only-full-shape
# mistake: applies the mask only when it already has the scores' full shape, silently ignoring a shared (T_q, T_k) or (B, 1, 1, T_k) padding mask
# must-pass: stable scale batch-dims cross-attention sum-to-one permutation-equivariant input-unchanged
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None and np.shape(mask) == scores.shape:
        scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    return w / w.sum(axis=-1, keepdims=True) @ v
