# attnprep: xent
# expect: fail confident stable
# must-pass: uniform shift-invariant mean bad-input matches-reference input-unchanged
# mistake: for vocabularies of 100 or more reuses the softmax and takes -log(p[target]); a confidently wrong target's
#          probability underflows to 0 there and the loss is inf, while small vocabularies take the log-sum-exp path
import numpy as np


def cross_entropy(logits, targets):
    N, V = logits.shape
    if ((targets < 0) | (targets >= V)).any():
        raise ValueError("bad target")
    m = logits.max(axis=1, keepdims=True)
    e = np.exp(logits - m)
    if V >= 100:
        p = e / e.sum(axis=1, keepdims=True)  # reuse the softmax for big vocabularies
        return float(np.mean(-np.log(p[np.arange(N), targets])))
    lse = np.log(e.sum(axis=1)) + m[:, 0]
    return float(np.mean(lse - logits[np.arange(N), targets]))
