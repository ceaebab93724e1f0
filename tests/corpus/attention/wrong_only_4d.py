# attnprep: attention
# expect: fail batch-dims matches-reference
# diagnosis: only-4d
# mistake: copied from multi-head code: k.transpose(0, 1, 3, 2) only works for (B, H, T, d) inputs, so 2-D and 3-D calls raise
# must-pass: scale stable sum-to-one input-unchanged
import numpy as np


def attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    scores -= scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return w @ v
