# attnprep: rope torch
"""Reference solution in PyTorch: rotary position embeddings in the rotate-half layout."""

import torch


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"rope needs an even feature size d, got d={d}")
    half = d // 2
    # Pair i turns by base^(-2i/d) radians per position.
    inv_freq = base ** (-2.0 * torch.arange(half, dtype=x.dtype) / d)   # (d/2,)
    angles = torch.as_tensor(positions).to(x.dtype)[:, None] * inv_freq  # (T, d/2)
    cos, sin = torch.cos(angles), torch.sin(angles)
    # Rotate half: feature i pairs with feature i + d/2.
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)
