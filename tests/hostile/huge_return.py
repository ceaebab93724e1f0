# attnprep: softmax
# expect-status: fail
# expect-message-any: too large
import numpy as np


def softmax(z, axis=-1):
    return np.broadcast_to(np.float64(0.5), (2**31,))  # 16 GiB, without the memory
