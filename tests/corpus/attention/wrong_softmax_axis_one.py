# attnprep: attention
# expect: fail batch-dims sum-to-one
# mistake: softmax written with axis=1, which is the key axis only for 2-D inputs
# diagnosis: softmax-wrong-axis
# must-pass: stable scale cross-attention mask
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=1, keepdims=True)
    return w @ v
