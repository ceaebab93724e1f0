# attnprep: xent
# expect: pass
# style: picks the targets as the diagonal of log_probs[:, targets] (an N x N grid), a ValueError subclass, np.amax
import numpy as np


class TargetOutOfRange(ValueError):
    pass


def cross_entropy(logits, targets, **kwargs):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    V = logits.shape[-1]
    if ((targets < 0) | (targets >= V)).any():
        raise TargetOutOfRange(f"targets must lie in 0..{V - 1}")
    m = np.amax(logits, axis=-1, keepdims=True)
    log_probs = logits - m - np.log(np.sum(np.exp(logits - m), axis=-1, keepdims=True))
    return -np.diagonal(log_probs[:, targets]).mean()
