# attnprep: attention
# expect: fail batch-dims matches-reference
# diagnosis: only-3d
# mistake: written for (B, T, d) inputs only: k.transpose(0, 2, 1) and axis=2 raise on plain 2-D arrays and mis-handle 4-D ones
# must-pass: scale stable sum-to-one input-unchanged
import numpy as np


def attention(q, k, v, mask=None):
    scores = np.matmul(q, k.transpose(0, 2, 1)) / np.sqrt(q.shape[2])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=2, keepdims=True)
    w = np.exp(scores)
    return np.matmul(w / w.sum(axis=2, keepdims=True), v)
