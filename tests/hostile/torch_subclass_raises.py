# attnprep: softmax torch
# expect-status: fail
# expect-message-any: could not be read back
# needs: torch
# A Tensor subclass whose __torch_function__ raises on every operation, the worker's conversion included.
import torch


class Trap(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        raise RuntimeError("every operation on this tensor raises")


def softmax(z, axis=-1):
    return torch.softmax(z, dim=axis).as_subclass(Trap)
