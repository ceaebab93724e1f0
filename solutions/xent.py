# attnprep: xent
"""Reference solution: mean cross-entropy computed in log space."""

import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    n, vocab = logits.shape
    # Validate before indexing: NumPy would read -1 as the last class.
    if targets.shape != (n,) or np.any((targets < 0) | (targets >= vocab)):
        raise ValueError(f"targets must be {n} integers in 0..{vocab - 1}")
    # -log softmax(z)[t] = logsumexp(z) - z[t]. Subtracting the row maximum
    # keeps every exponent <= 0 (no overflow), and the sum is >= 1, so we never
    # take log(0), however confidently wrong the model is.
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    picked = logits[np.arange(n), targets]
    return float(np.mean(lse - picked))  # the mean over the N rows, not the sum
