# attnprep: xent
# expect: fail bad-input
# must-pass: uniform confident stable shift-invariant mean matches-reference input-unchanged
# mistake: checks targets > V instead of targets >= V, so a target of exactly V slips through to the indexing (IndexError)
# diagnosis: target-range-off-by-one
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, V = logits.shape
    if np.any((targets < 0) | (targets > V)):
        raise ValueError("target out of range")
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(n), targets]))
