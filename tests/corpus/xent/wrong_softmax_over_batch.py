# attnprep: xent
# expect: fail uniform shift-invariant
# mistake: normalises over the batch axis (axis 0) instead of the vocabulary
# diagnosis: softmax-wrong-axis
# must-pass: stable confident mean
import numpy as np


def cross_entropy(logits, targets):
    n, vocab = logits.shape
    if np.any((targets < 0) | (targets >= vocab)):
        raise ValueError("target out of range")
    m = logits.max(axis=0, keepdims=True)
    log_probs = logits - m - np.log(np.exp(logits - m).sum(axis=0, keepdims=True))
    return float(-np.mean(log_probs[np.arange(n), targets]))
