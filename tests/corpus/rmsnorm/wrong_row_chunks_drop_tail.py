# attnprep: rmsnorm
# expect: fail matches-reference
# mistake: normalises large inputs in chunks of 256 vectors, looping over n // 256 whole chunks, so the vectors of a partial last chunk come back as zeros
import numpy as np


def _rms(x, weight, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(weight, dtype=np.float64)
    rows = x.reshape(-1, x.shape[-1])
    if len(rows) <= 256:
        return _rms(x, w, eps)
    out = np.zeros_like(rows)
    for c in range(len(rows) // 256):
        out[c * 256:(c + 1) * 256] = _rms(rows[c * 256:(c + 1) * 256], w, eps)
    return out.reshape(x.shape)


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * np.asarray(weight, dtype=np.float64) + np.asarray(bias, dtype=np.float64)
