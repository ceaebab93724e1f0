# attnprep: rope
# expect: fail positions
# must-pass: shape norm-preserving layout direction frequencies
# mistake: keeps the cos/sin table of the last call and reuses it when T, d, base and the first position match, so a call with the same start but other later positions gets stale angles
import numpy as np

_table = {}


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    positions = np.asarray(positions)
    key = (x.shape[-2], d, float(base), int(positions[0]))
    if key not in _table:
        inv_freq = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)
        angles = np.outer(positions.astype(np.float64), inv_freq)
        _table[key] = (np.cos(angles), np.sin(angles))
    cos, sin = _table[key]
    half = d // 2
    a, b = x[..., :half], x[..., half:]
    return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)
