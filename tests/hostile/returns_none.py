# attnprep: softmax
# expect-status: fail
# expect-message-any: None
import numpy as np


def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    e / e.sum(axis=axis, keepdims=True)
