# attnprep: rmsnorm torch
"""Reference solution in PyTorch: RMSNorm and LayerNorm over the last dimension."""

import torch


def rms_norm(x, weight, eps=1e-6):
    # eps inside the square root: an all-zero vector gives 0 * rsqrt(eps) = 0.
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(dim=-1, keepdim=True)
    # Population variance (unbiased=False): divide by d, not d - 1.
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps) * weight + bias
