# attnprep: xent
# expect: fail confident
# must-pass: uniform stable shift-invariant mean matches-reference bad-input
# mistake: sums the exps in float32, so a confident row's loss near 1e-5 is off by a rounding of 1 (6e-8)
import numpy as np


def cross_entropy(logits, targets):
    z = np.asarray(logits, dtype=np.float64)
    t = np.asarray(targets)
    n, v = z.shape
    if ((t < 0) | (t >= v)).any():
        raise ValueError("target out of range")
    z = z - z.max(axis=1, keepdims=True)
    total = np.exp(z).sum(axis=1, dtype=np.float32)  # the exps are all <= 1: float32 is enough for them
    return float(np.mean(np.log(total.astype(np.float64)) - z[np.arange(n), t]))
