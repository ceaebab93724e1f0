# attnprep: rope
# expect: fail positions relative
# mistake: caches cos/sin tables keyed on (T, d, base) only, so a second call with the same T and d but different positions reuses the first call's angles (e.g. rope(x, [0..3]) then rope(x, [517..520]), or any later same-shape call)
import numpy as np

_cache = {}


def _cos_sin(positions, T, d, base):
    key = (T, d, base)
    if key not in _cache:
        half = d // 2
        inv_freq = 1.0 / base ** (np.arange(0, d, 2) / d)
        theta = np.asarray(positions, dtype=np.float64)[:, None] * inv_freq
        _cache[key] = (np.cos(theta), np.sin(theta))
    return _cache[key]


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    T = x.shape[-2]
    half = d // 2
    cos, sin = _cos_sin(positions, T, d, base)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
