# attnprep: xent
# expect: fail mean uniform
# mistake: averages the one-hot-weighted log-probabilities over all N x V entries instead of over N
# diagnosis: mean-over-all-entries
# must-pass: stable confident
import numpy as np


def cross_entropy(logits, targets):
    n, vocab = logits.shape
    if np.any((targets < 0) | (targets >= vocab)):
        raise ValueError("target out of range")
    m = logits.max(axis=1, keepdims=True)
    log_probs = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    one_hot = np.eye(vocab)[targets]
    return float(-np.mean(one_hot * log_probs))
