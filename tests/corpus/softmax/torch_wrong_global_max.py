# attnprep: softmax
# expect: fail stable
# mistake: PyTorch, one maximum of the whole tensor (z.max() with no dim) for every slice
# diagnosis: global-max
import torch


def softmax(z, axis=-1):
    e = torch.exp(z - z.max())
    return e / e.sum(dim=axis, keepdim=True)
