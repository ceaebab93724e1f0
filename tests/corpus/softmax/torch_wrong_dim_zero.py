# attnprep: softmax
# expect: fail sum-to-one axis matches-reference
# mistake: PyTorch, normalises over dim=0 whatever axis is asked for
# diagnosis: softmax-wrong-axis
# must-pass: stable masked-entries
import torch


def softmax(z, axis=-1):
    e = torch.exp(z - z.max(dim=0, keepdim=True).values)
    return e / e.sum(dim=0, keepdim=True)
