# attnprep: rmsnorm
# expect: fail layer-norm-moments matches-reference
# mistake: PyTorch, x.var(dim=-1) is the sample variance (divides by d - 1), not the population variance
import torch


def rms_norm(x, weight, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias
