# attnprep: xent
# expect: pass
# style: Python-level validation over int(t), one-hot picked with np.einsum on a boolean mask, np.logaddexp.reduce
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    n, V = logits.shape
    ts = [int(t) for t in np.asarray(targets).ravel()]
    for t in ts:
        if not 0 <= t < V:
            raise ValueError(f"target {t} not in [0, {V})")
    mask = np.zeros((n, V), dtype=bool)
    mask[np.arange(n), ts] = True
    picked = np.einsum("nv,nv->n", np.where(mask, logits, 0.0), np.ones((n, V)))
    lse = np.logaddexp.reduce(logits, axis=1)
    return np.mean(lse - picked)
