# attnprep: softmax
# expect: fail stable
# mistake: PyTorch, exp of the raw scores: overflows at 1e4
# diagnosis: no-max-subtraction
import torch


def softmax(z, axis=-1):
    e = torch.exp(z)
    return e / e.sum(dim=axis, keepdim=True)
