# attnprep: rmsnorm
# expect: fail matches-reference
# must-pass: shape unit-rms no-centering scale-invariant zero-input eps layer-norm-moments weight-bias last-axis input-unchanged
# mistake: a "single pass over memory" variance E[x^2] - E[x]^2 for wide vectors (d >= 64) only: when a vector's
#          mean is far larger than its spread the subtraction cancels away the variance's digits
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    if x.shape[-1] >= 64:
        # single pass over memory for big tensors: var = E[x^2] - E[x]^2
        var = np.maximum((x * x).mean(axis=-1, keepdims=True) - mu * mu, 0.0)
    else:
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias
