# attnprep: xent
# expect: fail bad-input
# mistake: PyTorch, checks only targets >= V: a negative target indexes from the end instead of raising
# diagnosis: negative-targets-wrap
# must-pass: stable
import torch


def cross_entropy(logits, targets):
    n, v = logits.shape
    if bool((targets >= v).any()):
        raise ValueError("target out of range")
    m = logits.amax(dim=1, keepdim=True)
    lse = (m + torch.exp(logits - m).sum(dim=1, keepdim=True).log())[:, 0]
    return (lse - logits[torch.arange(n), targets]).mean().item()
