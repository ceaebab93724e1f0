# attnprep: rmsnorm
# expect: pass
# style: float32 arithmetic with float32 results: judged at float32 precision (the same code
#        returning float64 would be wrong, as float64 results are held to float64)
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x32 = x.astype(np.float32)
    ms = np.mean(x32 * x32, axis=-1, keepdims=True)
    return x32 / np.sqrt(ms + np.float32(eps)) * weight.astype(np.float32)


def layer_norm(x, weight, bias, eps=1e-5):
    x32 = x.astype(np.float32)
    mu = x32.mean(axis=-1, keepdims=True)
    var = x32.var(axis=-1, keepdims=True)
    return (x32 - mu) / np.sqrt(var + np.float32(eps)) * weight.astype(np.float32) + bias.astype(np.float32)
