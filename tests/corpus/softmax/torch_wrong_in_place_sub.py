# attnprep: softmax
# expect: fail input-unchanged
# mistake: PyTorch, shifts the caller's tensor in place with z.sub_(...)
# diagnosis: modifies-input
# must-pass: stable
import torch


def softmax(z, axis=-1):
    z.sub_(z.amax(dim=axis, keepdim=True))
    e = torch.exp(z)
    return e / e.sum(dim=axis, keepdim=True)
