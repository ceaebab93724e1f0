# attnprep: softmax
# expect: fail masked-entries
# must-pass: shape sum-to-one non-negative input-unchanged
# mistake: swaps -inf for -1e4 on float32 input only
import numpy as np

def softmax(z, axis=-1):
    if z.dtype != np.float64:
        # low precision: replace -inf by a large finite negative, as fp16/fp32 kernels do
        z = np.where(np.isneginf(z), -1e4, z)
    m = z.max(axis=axis, keepdims=True)
    e = np.exp(z - m)
    return e / e.sum(axis=axis, keepdims=True)
