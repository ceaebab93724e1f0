# attnprep: rmsnorm
# expect: pass
# style: PyTorch, rsqrt of mean(pow(2)) with keepdim, var(unbiased=False) for LayerNorm
import torch


def rms_norm(x, weight, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True, unbiased=False)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias
