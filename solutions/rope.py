# attnprep: rope
"""Reference solution: rotary position embeddings in the rotate-half layout."""

import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"rope needs an even feature size d, got d={d}")
    half = d // 2
    # One frequency per pair: pair i turns by base^(-2i/d) radians per position,
    # from 1 rad for i = 0 down to nearly 1/base for the last pair.
    inv_freq = base ** (-2.0 * np.arange(half) / d)                        # (d/2,)
    angles = np.asarray(positions, dtype=np.float64)[:, None] * inv_freq   # (T, d/2)
    cos, sin = np.cos(angles), np.sin(angles)  # broadcast against any leading axes of x
    # Rotate half: feature i is paired with feature i + d/2 (not with i + 1).
    x1, x2 = x[..., :half], x[..., half:]
    # Each pair (x1[i], x2[i]) turns counter-clockwise by its angle.
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
