# attnprep: softmax
# expect-status: fail
# expect-message-any: objects
import numpy as np


def softmax(z, axis=-1):
    out = np.empty(np.shape(z), dtype=object)
    out[...] = 0.5
    return out
