# attnprep: rope
# expect: pass
# style: flattens the leading axes to (B, T, d), builds each output half with np.stack over the pair axis, positions as keyword
import numpy as np


def _angles(positions, half, d, base):
    i = np.arange(half)
    return np.asarray(positions, dtype=np.float64)[:, None] / np.power(base, 2 * i / d)[None, :]


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    shape = x.shape
    T, d = shape[-2], shape[-1]
    if d % 2 == 1:
        raise ValueError("d is odd")
    half = d // 2
    flat = x.reshape(-1, T, d)
    ang = _angles(positions=positions, half=half, d=d, base=base)
    c, s = np.cos(ang)[None], np.sin(ang)[None]
    pairs = np.stack([flat[..., :half], flat[..., half:]], axis=0)   # (2, B, T, half)
    first = pairs[0] * c - pairs[1] * s
    second = pairs[0] * s + pairs[1] * c
    return np.concatenate([first, second], axis=-1).reshape(shape)
