# attnprep: xent
# expect: fail matches-reference
# must-pass: uniform confident stable shift-invariant mean bad-input input-unchanged
# mistake: works in chunks of 1,000 rows and returns the mean of the chunk means: wrong once N > 1,000 is not a
#          multiple of 1,000, as the last, partial chunk weighs as much as a full one
import numpy as np

CH = 1000


def cross_entropy(logits, targets):
    N, V = logits.shape
    if (targets < 0).any() or (targets >= V).any():
        raise ValueError("bad target")
    means = []
    for s in range(0, N, CH):  # bound memory
        z = logits[s:s + CH]
        t = targets[s:s + CH]
        m = z.max(axis=1, keepdims=True)
        lse = m[:, 0] + np.log(np.exp(z - m).sum(axis=1))
        means.append(np.mean(lse - z[np.arange(len(t)), t]))
    return float(np.mean(means))
