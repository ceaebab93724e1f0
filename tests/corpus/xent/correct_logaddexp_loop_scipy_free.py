# attnprep: xent
# expect: pass
# style: per-row running logsumexp with np.logaddexp over a Python loop, np.apply_along_axis for the rows,
#        validation with a set, returns a NumPy float64
import numpy as np


def _row_lse(row):
    acc = -np.inf
    for value in row:
        acc = np.logaddexp(acc, value)
    return acc


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=float)
    n_rows, n_classes = logits.shape
    allowed = set(range(n_classes))
    if len(targets) != n_rows or any(int(t) not in allowed for t in targets):
        raise ValueError("target out of range")
    lse = np.apply_along_axis(_row_lse, 1, logits)
    picked = np.array([logits[i, int(t)] for i, t in enumerate(targets)])
    return np.mean(lse - picked)
