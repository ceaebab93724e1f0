# attnprep: xent
# expect: fail bad-input
# mistake: no range check: NumPy raises IndexError for targets >= V and wraps negative ones
# diagnosis: no-validation
# must-pass: stable
import numpy as np


def cross_entropy(logits, targets):
    n = logits.shape[0]
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(n), targets]))
