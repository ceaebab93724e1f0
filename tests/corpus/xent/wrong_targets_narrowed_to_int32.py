# attnprep: xent
# expect: fail bad-input
# must-pass: matches-reference mean confident
# mistake: casts targets to int32 before the range check: an int64 target of 2**32 + 1 wraps to class 1
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    # int32 is plenty for any vocabulary, and halves the index memory
    idx = np.asarray(targets).astype(np.int32, copy=False)
    n, vocab = logits.shape
    if idx.min() < 0 or idx.max() >= vocab:
        raise ValueError(f"targets must lie in [0, {vocab})")
    top = logits.max(axis=1)
    lse = top + np.log(np.sum(np.exp(logits - top[:, None]), axis=1))
    return float((lse - logits[np.arange(n), idx]).mean())
