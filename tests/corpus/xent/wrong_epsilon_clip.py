# attnprep: xent
# expect: fail confident
# must-pass: uniform mean shift-invariant
# mistake: guards log(0) with -log(p + 1e-12): a confidently wrong target's loss is capped near 27.6 instead of ~1000
# diagnosis: epsilon-in-log
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, v = logits.shape
    if np.any((targets < 0) | (targets >= v)):
        raise ValueError("target out of range")
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs = e / e.sum(axis=1, keepdims=True)
    return float(-np.mean(np.log(probs[np.arange(n), targets] + 1e-12)))
