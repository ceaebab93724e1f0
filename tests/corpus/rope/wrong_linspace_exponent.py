# attnprep: rope
# expect: fail frequencies matches-reference
# must-pass: shape norm-preserving position-zero layout direction positions relative bad-input input-unchanged
# mistake: spreads the exponents with np.linspace(0, 1, d // 2), so the last pair turns by base^-1 instead of base^(-(d-2)/d)
# diagnosis: rope-linspace-exponent
import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError("odd d")
    half = d // 2
    inv_freq = base ** -np.linspace(0.0, 1.0, half)
    ang = np.asarray(positions, dtype=np.float64)[:, None] * inv_freq
    cos, sin = np.cos(ang), np.sin(ang)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
