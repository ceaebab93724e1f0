# attnprep: xent
# expect: fail confident
# mistake: shifts each row by the TARGET logit instead of the row maximum (log1p of sum exp(z_j - z_t)): a
#          confidently wrong target makes exp(z_j - z_t) overflow
# diagnosis: shift-by-target
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, v = logits.shape
    if np.any((targets < 0) | (targets >= v)):
        raise ValueError("target out of range")
    zt = logits[np.arange(n), targets][:, None]
    others = np.exp(logits - zt)
    others[np.arange(n), targets] = 0.0
    return float(np.mean(np.log1p(others.sum(axis=1))))
