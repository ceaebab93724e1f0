# attnprep: xent
# expect: fail matches-reference
# must-pass: uniform confident shift-invariant mean bad-input input-unchanged
# mistake: computes the log-sum-exp of big batches (above 32k logits) in float32 to halve the memory, then returns a
#          float64 mean: near +-5,000 float32 keeps only about 3 decimals of each logit
# diagnosis: float32-arithmetic
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, vocab = logits.shape
    if np.any((targets < 0) | (targets >= vocab)):
        raise ValueError("target out of range")
    z = logits.astype(np.float32) if logits.size > 32_768 else logits
    m = z.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(z - m).sum(axis=1))
    return float(np.mean(lse.astype(np.float64) - logits[np.arange(n), targets]))
