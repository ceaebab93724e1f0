# attnprep: rope
# expect: fail layout matches-reference
# mistake: PyTorch, the interleaved layout through view_as_complex (pairs 2i, 2i+1), not rotate-half
# diagnosis: rope-interleaved
import torch


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    inv_freq = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    angles = positions.to(torch.float64)[:, None] * inv_freq
    rot = torch.polar(torch.ones_like(angles), angles)
    xc = torch.view_as_complex(x.reshape(*x.shape[:-1], d // 2, 2).contiguous())
    return torch.view_as_real(xc * rot).reshape(x.shape)
