# attnprep: xent
# expect: pass
# style: PyTorch, a manual log-sum-exp with amax, gather of the target logits, a 0-d tensor returned
import torch


def cross_entropy(logits, targets):
    n, v = logits.shape
    if targets.min() < 0 or targets.max() >= v:
        raise ValueError("target out of range")
    m = logits.amax(dim=-1, keepdim=True)
    log_probs = logits - m - torch.log(torch.exp(logits - m).sum(dim=-1, keepdim=True))
    return -log_probs.gather(1, targets.unsqueeze(1)).mean()
