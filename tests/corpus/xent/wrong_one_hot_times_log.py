# attnprep: xent
# expect: fail confident
# mistake: multiplies a one-hot by log(softmax); 0 * log(0) = nan as soon as any probability underflows
# diagnosis: one-hot-times-log
import numpy as np


def cross_entropy(logits, targets):
    n, vocab = logits.shape
    if np.any((targets < 0) | (targets >= vocab)):
        raise ValueError("target out of range")
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs = e / e.sum(axis=1, keepdims=True)
    one_hot = np.eye(vocab)[targets]
    return float(-np.sum(one_hot * np.log(probs)) / n)
