# attnprep: softmax
# expect: pass
# style: PyTorch, amax with keepdim=True along dim=axis, exp and a division
import torch


def softmax(z, axis=-1):
    e = torch.exp(z - z.amax(dim=axis, keepdim=True))
    return e / e.sum(dim=axis, keepdim=True)
