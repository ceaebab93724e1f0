# attnprep: softmax
# expect-status: fail
# expect-message-any: too large
# A 512 MiB bool array: 4 GiB once the checks read it as float64. Refused before the parent holds it.
import numpy as np


def softmax(z, axis=-1):
    return np.zeros(2**29, dtype=bool)
