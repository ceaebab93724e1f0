# attnprep: xent
# expect: pass
# style: sorts each row, log-sum-exp as top + log1p(sum of the others' exp), targets cast with astype(np.intp)
import numpy as np


def cross_entropy(logits, targets):
    z = np.array(logits, dtype=float)
    t = np.asarray(targets)
    if t.min() < 0 or t.max() >= z.shape[1]:
        raise ValueError("target out of range")
    t = t.astype(np.intp)
    s = np.sort(z, axis=1)
    top = s[:, -1]
    lse = top + np.log1p(np.exp(s[:, :-1] - top[:, None]).sum(axis=1))
    picked = z[np.arange(z.shape[0]), t]
    return float(np.sum(lse - picked) / len(t))
