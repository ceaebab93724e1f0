# attnprep: xent
# expect: pass
# style: PyTorch, F.one_hot of the targets times the log-probabilities, .item() of the mean
import torch.nn.functional as F


def cross_entropy(logits, targets):
    n, v = logits.shape
    if bool((targets < 0).any()) or bool((targets >= v).any()):
        raise ValueError("target out of range")
    z = logits - logits.max(dim=1, keepdim=True).values
    logp = z - z.exp().sum(dim=1, keepdim=True).log()
    return -(F.one_hot(targets, v) * logp).sum(dim=1).mean().item()
