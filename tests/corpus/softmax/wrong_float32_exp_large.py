# attnprep: softmax
# expect: fail matches-reference
# mistake: past 65,536 entries takes np.exp in float32 "for speed": every probability is still within 1e-7 of
# itself, but the small ones underflow or lose their digits
# must-pass: shape sum-to-one stable axis input-unchanged
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z)
    shifted = z - z.max(axis=axis, keepdims=True)
    if shifted.size > 65_536:
        shifted = shifted.astype(np.float32)
    e = np.exp(shifted)
    return (e / e.sum(axis=axis, keepdims=True)).astype(z.dtype)
