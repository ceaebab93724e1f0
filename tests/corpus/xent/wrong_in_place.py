# attnprep: xent
# expect: fail input-unchanged
# mistake: subtracts the row maximum from the caller's logits in place
# must-pass: stable
# diagnosis: in-place-shift
import numpy as np


def cross_entropy(logits, targets):
    n, vocab = logits.shape
    if np.any((targets < 0) | (targets >= vocab)):
        raise ValueError("target out of range")
    logits -= logits.max(axis=1, keepdims=True)
    lse = np.log(np.exp(logits).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(n), targets]))
