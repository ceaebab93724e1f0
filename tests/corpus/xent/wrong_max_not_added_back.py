# attnprep: xent
# expect: fail uniform shift-invariant
# mistake: log-sum-exp of the shifted logits without adding the row maximum back, minus the unshifted target logit
# diagnosis: max-not-added-back
# must-pass: stable confident mean
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, v = logits.shape
    if np.any((targets < 0) | (targets >= v)):
        raise ValueError("target out of range")
    m = logits.max(axis=1, keepdims=True)
    lse = np.log(np.exp(logits - m).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(n), targets]))
