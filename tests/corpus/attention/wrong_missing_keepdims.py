# attnprep: attention
# expect: fail cross-attention matches-reference batch-dims sum-to-one permutation-equivariant stable
# mistake: row max and row sum without keepdims: they broadcast over the wrong axis when T_q == T_k and fail otherwise
# diagnosis: missing-keepdims
# must-pass: scale shape mask input-unchanged
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1))
    return w / w.sum(axis=-1) @ v
