# attnprep: xent
# expect: fail confident
# mistake: takes the log of a (stable) softmax; a confidently wrong target has probability 0 and loss inf
# diagnosis: log-of-softmax
import numpy as np


def cross_entropy(logits, targets):
    n, vocab = logits.shape
    if np.any((targets < 0) | (targets >= vocab)):
        raise ValueError("target out of range")
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs = e / e.sum(axis=1, keepdims=True)
    return float(-np.mean(np.log(probs[np.arange(n), targets])))
