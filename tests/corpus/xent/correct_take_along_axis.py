# attnprep: xent
# expect: pass
# style: log-softmax with np.take_along_axis, returns a NumPy float64
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets, dtype=np.int64)
    if targets.min() < 0 or targets.max() >= logits.shape[-1]:
        raise ValueError("every target must be a valid class index")
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    picked = np.take_along_axis(log_probs, targets[:, None], axis=-1)
    return -picked.mean()
