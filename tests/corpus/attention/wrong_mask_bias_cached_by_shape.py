# attnprep: attention
# expect: fail mask
# mistake: caches the additive -inf bias keyed on (mask.shape, scores.shape); a second call with a different mask of the same shape reuses the first mask's pattern
import numpy as np

_BIAS_CACHE = {}


def _bias(mask, shape):
    key = (mask.shape, shape)
    if key not in _BIAS_CACHE:
        b = np.where(np.broadcast_to(mask, shape), -np.inf, 0.0)
        _BIAS_CACHE[key] = b
    return _BIAS_CACHE[key]


def attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = scores + _bias(mask, scores.shape)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return w @ v
