# attnprep: rope
# expect: pass
# style: a cos/sin cache for 4,096 positions that doubles whenever a larger position comes (no wrap, no clip)
import numpy as np

_CACHE = {}


def _cached(d, base, needed):
    key = (d, float(base))
    cos, sin = _CACHE.get(key, (np.empty((0, d // 2)), np.empty((0, d // 2))))
    if cos.shape[0] < needed:
        size = max(4096, cos.shape[0])
        while size < needed:
            size *= 2
        angles = np.arange(size, dtype=np.float64)[:, None] * (base ** (-2.0 * np.arange(d // 2) / d))
        cos, sin = np.cos(angles), np.sin(angles)
        _CACHE[key] = (cos, sin)
    return cos, sin


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    positions = np.asarray(positions)
    cos, sin = _cached(d, base, int(positions.max()) + 1 if positions.size else 0)
    cos, sin = cos[positions], sin[positions]
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
