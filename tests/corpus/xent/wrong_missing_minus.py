# attnprep: xent
# expect: fail uniform matches-reference
# must-pass: stable shift-invariant bad-input input-unchanged
# mistake: returns the mean log-probability of the targets, forgetting the minus sign of -log p
# diagnosis: missing-minus
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, V = logits.shape
    if np.any((targets < 0) | (targets >= V)):
        raise ValueError("target out of range")
    m = logits.max(axis=1, keepdims=True)
    log_probs = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    return float(np.mean(log_probs[np.arange(n), targets]))
