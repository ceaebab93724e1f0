# attnprep: rmsnorm
# expect: pass
# style: layer_norm via np.std squared back, rms_norm via np.linalg.norm with eps folded in as an extra feature
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    # sqrt(sum(x**2) + d*eps) / sqrt(d) == sqrt(mean(x**2) + eps)
    padded = np.concatenate([x, np.full(x.shape[:-1] + (1,), np.sqrt(d * eps))], axis=-1)
    rms = np.linalg.norm(padded, axis=-1, keepdims=True) / np.sqrt(d)
    return weight * (x / rms)


def layer_norm(x, weight, bias, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    std = np.std(x, axis=-1, keepdims=True)
    return bias + weight * (x - x.mean(-1, keepdims=True)) / np.sqrt(std ** 2 + eps)
