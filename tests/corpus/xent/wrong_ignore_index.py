# attnprep: xent
# expect: fail bad-input
# must-pass: uniform confident stable shift-invariant mean matches-reference input-unchanged
# mistake: ports PyTorch's F.cross_entropy(ignore_index=-100): rows whose target is -100 are skipped and the mean
#          taken over the others, so a target of -100 returns a loss instead of raising ValueError
# diagnosis: ignore-index
import numpy as np


def cross_entropy(logits, targets, ignore_index=-100):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, vocab = logits.shape
    keep = targets != ignore_index
    if np.any((targets[keep] < 0) | (targets[keep] >= vocab)):
        raise ValueError(f"targets must be in 0..{vocab - 1} (or {ignore_index} to ignore a row)")
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    rows = np.flatnonzero(keep)
    return float(np.mean(lse[rows] - logits[rows, targets[rows]]))
