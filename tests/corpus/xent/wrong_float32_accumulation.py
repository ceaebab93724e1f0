# attnprep: xent
# expect: fail stable
# must-pass: shift-invariant uniform
# mistake: casts the logits to float32 "for speed": near 1e4 float32 keeps only about 3 decimal places
# diagnosis: float32-arithmetic
import numpy as np


def cross_entropy(logits, targets):
    z = np.asarray(logits, dtype=np.float32)
    targets = np.asarray(targets)
    n, v = z.shape
    if np.any((targets < 0) | (targets >= v)):
        raise ValueError("target out of range")
    m = z.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(z - m).sum(axis=1))
    return float(np.mean(lse - z[np.arange(n), targets]))
