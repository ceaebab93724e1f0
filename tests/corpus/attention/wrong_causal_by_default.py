# attnprep: attention
# expect: fail permutation-equivariant
# mistake: falls back to a causal mask when no mask is given, so position matters without a mask
# diagnosis: causal-by-default
# must-pass: stable scale batch-dims cross-attention mask
import numpy as np


def attention(q, k, v, mask=None):
    t_q, t_k = q.shape[-2], k.shape[-2]
    if mask is None:
        mask = np.triu(np.ones((t_q, t_k), dtype=bool), k=1)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v
