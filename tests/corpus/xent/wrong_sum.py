# attnprep: xent
# expect: fail mean
# mistake: sums the per-example losses instead of averaging them
# diagnosis: sum-instead-of-mean
# must-pass: stable confident uniform
import numpy as np


def cross_entropy(logits, targets):
    n, vocab = logits.shape
    if np.any((targets < 0) | (targets >= vocab)):
        raise ValueError("target out of range")
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return float(np.sum(lse - logits[np.arange(n), targets]))
