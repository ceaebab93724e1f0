# attnprep: xent
# expect: pass
# style: np.logaddexp.reduce and np.take_along_axis, mean via np.average; works for integer logits too
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits)
    targets = np.asarray(targets, dtype=np.intp)
    if targets.ndim != 1 or targets.shape[0] != logits.shape[0]:
        raise ValueError("targets must have shape (N,)")
    if ((targets < 0) | (targets >= logits.shape[-1])).any():
        raise ValueError("a target is outside 0..V-1")
    log_norm = np.logaddexp.reduce(logits.astype(np.float64), axis=-1)
    target_logit = np.take_along_axis(logits, targets[:, None], axis=-1)[:, 0]
    return np.average(log_norm - target_logit)
