# attnprep: rmsnorm
# expect: pass
# style: np.apply_along_axis over 1-D helpers, results returned as nested Python lists
import numpy as np


def _rms_vec(v, eps):
    return v / np.sqrt(np.dot(v, v) / v.size + eps)


def _ln_vec(v, eps):
    c = v - v.sum() / v.size
    return c / np.sqrt(np.dot(c, c) / v.size + eps)


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    return (np.apply_along_axis(_rms_vec, -1, x, eps) * weight).tolist()


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    return (np.apply_along_axis(_ln_vec, -1, x, eps) * weight + bias).tolist()
