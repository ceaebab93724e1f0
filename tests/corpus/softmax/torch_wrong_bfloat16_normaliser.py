# attnprep: softmax
# expect: fail matches-reference
# must-pass: shape axis input-unchanged
# mistake: sums the exps of float32 scores in bfloat16 "like autocast": each normaliser is off by up to 2e-3
import torch


def softmax(z, axis=-1):
    shifted = z - z.max(dim=axis, keepdim=True).values
    e = shifted.exp()
    if e.dtype == torch.float32:
        total = e.to(torch.bfloat16).sum(dim=axis, keepdim=True).float()
    else:
        total = e.sum(dim=axis, keepdim=True)
    return e / total
