# attnprep: softmax
# expect: pass
# style: PyTorch, torch.max(...).values, the whole computation in float32 and a float32 result
import torch


def softmax(z, axis=-1):
    z = z.to(torch.float32)
    shifted = z - torch.max(z, dim=axis, keepdim=True).values
    e = shifted.exp()
    return e / e.sum(dim=axis, keepdim=True)
