# attnprep: xent
# expect: fail stable shift-invariant confident
# mistake: exponentiates the raw logits, which overflows near 1e4
# diagnosis: no-max-subtraction
import numpy as np


def cross_entropy(logits, targets):
    n, vocab = logits.shape
    if np.any((targets < 0) | (targets >= vocab)):
        raise ValueError("target out of range")
    lse = np.log(np.exp(logits).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(n), targets]))
