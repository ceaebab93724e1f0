# attnprep: xent
# expect: fail stable shift-invariant matches-reference
# must-pass: uniform mean bad-input input-unchanged
# mistake: clips the logits to [-500, 500] to keep np.exp from overflowing, which changes the loss of large logits
# diagnosis: clips-logits
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, V = logits.shape
    if np.any((targets < 0) | (targets >= V)):
        raise ValueError("target out of range")
    z = np.clip(logits, -500.0, 500.0)
    m = z.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(z - m).sum(axis=1))
    return float(np.mean(lse - z[np.arange(n), targets]))
