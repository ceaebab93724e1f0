# attnprep: rmsnorm
# expect: fail matches-reference
# must-pass: shape unit-rms no-centering scale-invariant zero-input eps layer-norm-moments weight-bias last-axis input-unchanged
# mistake: normalises big activation tensors in float32 to halve their memory (above 16k entries), then casts back:
#          a float64 result with float32's digits, and squares that overflow past 1.8e19
# diagnosis: float32-arithmetic
import numpy as np

BIG = 1 << 14


def _work(x):
    x = np.asarray(x, dtype=np.float64)
    return x.astype(np.float32) if x.size > BIG else x


def rms_norm(x, weight, eps=1e-6):
    w = _work(x)
    ms = np.mean(w * w, axis=-1, keepdims=True)
    return (w / np.sqrt(ms + eps)).astype(np.float64) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    w = _work(x)
    mu = w.mean(axis=-1, keepdims=True)
    c = w - mu
    var = np.mean(c * c, axis=-1, keepdims=True)
    return (c / np.sqrt(var + eps)).astype(np.float64) * weight + bias
