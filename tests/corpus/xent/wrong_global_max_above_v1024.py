# attnprep: xent
# expect: fail stable
# must-pass: uniform confident shift-invariant mean bad-input matches-reference input-unchanged
# mistake: for vocabularies of 1,024 or more subtracts one maximum for the whole batch instead of each row's own; a
#          row far below the batch's maximum then sums exps that underflow to 0 and its loss is -inf
import numpy as np


def cross_entropy(logits, targets):
    N, V = logits.shape
    if ((targets < 0) | (targets >= V)).any():
        raise ValueError("bad target")
    if V >= 1024:
        m = logits.max()  # one reduction instead of N for big inputs
    else:
        m = logits.max(axis=1, keepdims=True)
    lse = np.log(np.exp(logits - m).sum(axis=1, keepdims=True)) + m
    return float(np.mean(lse[:, 0] - logits[np.arange(N), targets]))
