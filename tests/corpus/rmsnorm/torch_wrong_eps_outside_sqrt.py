# attnprep: rmsnorm
# expect: fail eps
# mistake: PyTorch, adds eps after the square root (x.norm-style), not inside it
# diagnosis: eps-outside-sqrt layer-norm-eps-outside-sqrt
import torch  # noqa: F401 - the tensors this file works on are torch tensors


def rms_norm(x, weight, eps=1e-6):
    return x / (x.pow(2).mean(-1, keepdim=True).sqrt() + eps) * weight


def layer_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True, unbiased=False)
    return (x - mean) / (var.sqrt() + eps) * weight + bias
