# attnprep: softmax
# expect: fail stable masked-entries
# diagnosis: clips-scores
# mistake: clips the scores to avoid overflow, which changes the answer
import numpy as np


def softmax(z, axis=-1):
    e = np.exp(np.clip(z, -50.0, 50.0))
    return e / e.sum(axis=axis, keepdims=True)
