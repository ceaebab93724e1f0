# attnprep: xent
# expect: fail mean matches-reference
# must-pass: bad-input input-unchanged
# mistake: returns the vector of N per-row losses instead of their mean
# diagnosis: per-row-losses
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, V = logits.shape
    if np.any((targets < 0) | (targets >= V)):
        raise ValueError("target out of range")
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return lse - logits[np.arange(n), targets]
