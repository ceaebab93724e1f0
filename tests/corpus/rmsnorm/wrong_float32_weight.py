# attnprep: rmsnorm
# expect: fail matches-reference
# must-pass: shape unit-rms no-centering scale-invariant zero-input eps layer-norm-moments weight-bias last-axis input-unchanged
# mistake: keeps the learned gain in float32, as a checkpoint stores it, while x is float64: the result is
#          float64 (NumPy promotes), but every weight was rounded to float32 first, up to 6e-8 of itself
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    gain = np.asarray(weight, dtype=np.float32)  # parameters in float32, like the model's
    ms = np.mean(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(ms + eps) * gain


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mu = x.mean(axis=-1, keepdims=True)
    c = x - mu
    var = np.mean(c * c, axis=-1, keepdims=True)
    return c / np.sqrt(var + eps) * weight + bias
