# attnprep: rope
# expect: fail input-unchanged
# mistake: PyTorch, writes the rotated halves back into the caller's x through slices (views of it)
# diagnosis: rope-in-place
import torch


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    half = d // 2
    inv_freq = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / d)
    ang = positions.to(torch.float64)[:, None] * inv_freq
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., :half].clone(), x[..., half:].clone()
    x[..., :half] = x1 * cos - x2 * sin
    x[..., half:] = x1 * sin + x2 * cos
    return x
