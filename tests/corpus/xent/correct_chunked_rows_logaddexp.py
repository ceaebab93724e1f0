# attnprep: xent
# expect: pass
# style: rows in blocks of 128 (bounded memory), np.logaddexp.reduce per row, a running float sum for the mean
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, vocab = logits.shape
    if targets.shape != (n,) or not np.issubdtype(targets.dtype, np.integer):
        raise ValueError("targets must be (N,) integers")
    if ((targets < 0) | (targets >= vocab)).any():
        raise ValueError("every target must lie in 0..V-1")
    total = 0.0
    for start in range(0, n, 128):
        block = logits[start:start + 128]
        t = targets[start:start + 128]
        lse = np.logaddexp.reduce(block, axis=1)
        total += float(np.sum(lse - block[np.arange(len(t)), t]))
    return total / n
