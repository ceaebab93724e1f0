# attnprep: attention
# expect: fail batch-dims
# mistake: uses k.T, which reverses every axis of a batched k instead of swapping the last two
# diagnosis: transpose-all-axes
# must-pass: stable scale shape cross-attention sum-to-one permutation-equivariant mask input-unchanged
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v
