# attnprep: softmax
# expect: fail masked-entries
# must-pass: shape sum-to-one non-negative input-unchanged
# mistake: swaps -inf for -1e4 on the 1-D path only: next to scores near -1e4 a blocked entry gets weight
import numpy as np

def softmax(z, axis=-1):
    if z.ndim == 1:
        # vectors: swap -inf for a large negative score (fp16 habit)
        z = np.where(np.isneginf(z), -1e4, z)
    m = z.max(axis=axis, keepdims=True)
    e = np.exp(z - m)
    return e / e.sum(axis=axis, keepdims=True)
