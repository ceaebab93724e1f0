# attnprep: rmsnorm
# expect: fail eps matches-reference
# mistake: hard-codes the default eps inside the formula, so the eps argument is ignored
# diagnosis: rms-eps-ignored layer-norm-eps-ignored
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    ms = np.mean(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(ms + 1e-6) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * weight + bias
