# attnprep: swiglu
# expect: pass
# style: np.dot on N-D inputs, in-place ufuncs on private buffers (out=), extra keyword arguments accepted
import numpy as np


def swiglu(x, W_gate, W_up, W_down, **kwargs):
    h = np.dot(x, W_gate)              # a fresh array: safe to overwrite
    e = np.abs(h)
    np.negative(e, out=e)
    np.exp(e, out=e)                   # exp(-|h|) <= 1
    sig = np.where(h >= 0, 1.0, e)
    sig /= 1.0 + e                     # sigmoid(h), stable
    h *= sig                           # silu(h), in place
    h *= np.dot(x, W_up)
    return np.dot(h, W_down)
