# attnprep: softmax
# expect: fail input-unchanged
# must-pass: matches-reference axis stable masked-entries sum-to-one
# mistake: subtracts the maximum in place once the array passes 2**18 entries, rewriting the caller's scores
import numpy as np

IN_PLACE_FROM = 1 << 18


def softmax(z, axis=-1):
    z = np.asarray(z)
    top = np.max(z, axis=axis, keepdims=True)
    if z.size >= IN_PLACE_FROM:
        z -= top  # big attention maps: reuse the buffer
        shifted = z
    else:
        shifted = z - top
    w = np.exp(shifted)
    w /= np.sum(w, axis=axis, keepdims=True)
    return w
