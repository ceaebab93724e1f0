# attnprep: xent
# expect: fail stable shift-invariant
# mistake: subtracts one maximum for the whole batch; a row far below it gives log(0)
# diagnosis: global-max
import numpy as np


def cross_entropy(logits, targets):
    n, vocab = logits.shape
    if np.any((targets < 0) | (targets >= vocab)):
        raise ValueError("target out of range")
    m = logits.max()
    lse = m + np.log(np.exp(logits - m).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(n), targets]))
