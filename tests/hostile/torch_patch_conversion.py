# attnprep: softmax torch
# expect-status: fail
# expect-message-any: could not be read back
# needs: torch
# Patches the methods a worker might use to read a tensor back, so that reading any result raises.
import torch


def _refuse(self, *args, **kwargs):
    raise RuntimeError("no reading back")


torch.Tensor.numpy = _refuse
torch.Tensor.tolist = _refuse
torch.Tensor.detach = lambda self: self


def softmax(z, axis=-1):
    return torch.softmax(z, dim=axis)
