# attnprep: xent
# expect: fail stable
# must-pass: uniform shift-invariant mean bad-input matches-reference input-unchanged
# mistake: stabilises the log-sum-exp with each row's first logit instead of its maximum, so a logit far above the
#          first one still overflows np.exp
# diagnosis: shift-by-first
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, vocab = logits.shape
    if np.any((targets < 0) | (targets >= vocab)):
        raise ValueError("target out of range")
    c = logits[:, :1]
    lse = c[:, 0] + np.log(np.exp(logits - c).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(n), targets]))
