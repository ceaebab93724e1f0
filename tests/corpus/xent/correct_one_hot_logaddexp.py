# attnprep: xent
# expect: pass
# style: logsumexp by np.logaddexp.reduce, a one-hot mask, returns a 0-d array
import numpy as np


def cross_entropy(logits, targets):
    n, vocab = np.shape(logits)
    t = np.asarray(targets)
    bad = (t < 0) | (t >= vocab)
    if bad.any():
        raise ValueError(f"targets out of range: {t[bad]}")
    lse = np.logaddexp.reduce(logits, axis=1)
    one_hot = np.arange(vocab)[None, :] == t[:, None]
    picked = np.where(one_hot, logits, 0.0).sum(axis=1)
    return np.asarray(np.sum(lse - picked) / n)
