# attnprep: softmax
# expect: fail masked-entries
# must-pass: shape sum-to-one non-negative input-unchanged
# mistake: swaps -inf for -1e4 on batched (3-D and up) input only, as an fp16 attention kernel does
import numpy as np

def softmax(z, axis=-1):
    if z.ndim >= 3:
        # attention scores (B, H, T, T) / (H, T, T): masked_fill(-1e4) as in fp16 kernels
        z = np.where(np.isneginf(z), -1e4, z)
    m = z.max(axis=axis, keepdims=True)
    e = np.exp(z - m)
    return e / e.sum(axis=axis, keepdims=True)
