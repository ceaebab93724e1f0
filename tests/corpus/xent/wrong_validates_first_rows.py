# attnprep: xent
# expect: fail bad-input
# must-pass: uniform confident stable shift-invariant mean matches-reference input-unchanged
# mistake: validates the targets with a Python loop that stops early ("a sample is enough" on big batches), so a bad
#          target past the first 1,024 rows slips through: NumPy reads -1 as the last class
import numpy as np

CHECKED = 1024


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, vocab = logits.shape
    for t in targets[:CHECKED]:
        if not 0 <= t < vocab:
            raise ValueError(f"target {t} is not a class of {vocab}")
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(n), targets]))
