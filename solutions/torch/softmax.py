# attnprep: softmax torch
"""Reference solution in PyTorch: stable softmax."""

import torch


def softmax(z, axis=-1):
    z = torch.as_tensor(z)
    if not z.is_floating_point():
        z = z.to(torch.float64)
    # Subtracting each slice's maximum (keepdim=True keeps the reduced dimension, so it broadcasts back)
    # leaves the result unchanged and keeps every exponent <= 0; exp(-inf) is exactly 0.
    shifted = z - z.amax(dim=axis, keepdim=True)
    e = torch.exp(shifted)
    return e / e.sum(dim=axis, keepdim=True)
