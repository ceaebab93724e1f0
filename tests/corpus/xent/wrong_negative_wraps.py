# attnprep: xent
# expect: fail bad-input
# mistake: checks only targets >= V, so -1 silently picks the last class
# diagnosis: negative-targets-wrap
# must-pass: stable
import numpy as np


def cross_entropy(logits, targets):
    n, vocab = logits.shape
    if np.any(targets >= vocab):
        raise ValueError("target out of range")
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(n), targets]))
