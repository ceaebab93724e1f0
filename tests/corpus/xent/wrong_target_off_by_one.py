# attnprep: xent
# expect: fail bad-input
# mistake: range check with targets > V instead of >= V: a target equal to V slips through and NumPy raises IndexError
# must-pass: stable
# diagnosis: target-range-off-by-one
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, v = logits.shape
    if np.any(targets < 0) or np.any(targets > v):
        raise ValueError("target out of range")
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(n), targets]))
