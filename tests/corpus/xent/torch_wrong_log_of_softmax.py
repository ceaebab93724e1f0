# attnprep: xent
# expect: fail confident
# mistake: PyTorch, log of the softmax probabilities: a confidently wrong row gives log(0) = -inf
# diagnosis: log-of-softmax
import torch


def cross_entropy(logits, targets):
    n, v = logits.shape
    if bool(((targets < 0) | (targets >= v)).any()):
        raise ValueError("target out of range")
    z = logits - logits.amax(dim=1, keepdim=True)
    p = z.exp() / z.exp().sum(dim=1, keepdim=True)
    return -torch.log(p[torch.arange(n), targets]).mean().item()
