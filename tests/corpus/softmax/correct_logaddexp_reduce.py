# attnprep: softmax
# expect: pass
# style: log-normaliser from np.logaddexp.reduce (no explicit max), tuple axis via np.expand_dims
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    log_norm = np.logaddexp.reduce(z, axis=axis)
    return np.exp(z - np.expand_dims(log_norm, axis))
