# attnprep: xent
# expect: fail confident stable
# must-pass: uniform shift-invariant mean bad-input matches-reference input-unchanged
# mistake: stabilises by subtracting each row's MEAN instead of its maximum, so a logit far above the rest still overflows np.exp
# diagnosis: shift-by-mean
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, V = logits.shape
    if np.any((targets < 0) | (targets >= V)):
        raise ValueError("target out of range")
    c = logits.mean(axis=1, keepdims=True)
    lse = c[:, 0] + np.log(np.exp(logits - c).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(n), targets]))
