# attnprep: softmax torch
# expect: fail input-unchanged
# must-pass: shape sum-to-one non-negative
# mistake: detach() shares storage: the in-place masked write on the 1-D path reaches the caller's tensor
import torch

def softmax(z, axis=-1):
    if z.dim() == 1:
        z = z.detach()            # detach before in-place work (shares storage!)
        big = torch.finfo(z.dtype).min
        mask = torch.isneginf(z)
        z[mask] = big
        e = torch.exp(z - z.max())
        e[mask] = 0.0
        return e / e.sum()
    m = z.amax(dim=axis, keepdim=True)
    e = torch.exp(z - m)
    return e / e.sum(dim=axis, keepdim=True)
