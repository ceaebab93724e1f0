# attnprep: xent
# expect: fail bad-input matches-reference
# mistake: stores the targets as uint8 "to save memory" before indexing and range-checking them: class 300 becomes 44, and -1 becomes 255, a valid class of a large vocabulary
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    t = np.asarray(targets).astype(np.uint8)
    n, vocab = logits.shape
    if np.any(t >= vocab):
        raise ValueError("target out of range")
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(n), t]))
