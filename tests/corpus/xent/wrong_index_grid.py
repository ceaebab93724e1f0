# attnprep: xent
# expect: fail mean matches-reference
# mistake: picks the targets with log_probs[:, targets], an (N, N) grid of every row at every target, and averages it
# diagnosis: targets-index-grid
# must-pass: stable confident
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    if np.any((targets < 0) | (targets >= logits.shape[1])):
        raise ValueError("target out of range")
    m = logits.max(axis=1, keepdims=True)
    log_probs = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    return float(-np.mean(log_probs[:, targets]))
