# attnprep: xent
# expect: pass
# style: np.einsum with a boolean one-hot mask over odd subscripts, -1e30 fill via np.where, returns a Python float
import numpy as np


def cross_entropy(logits, targets, **unused):
    x = np.asarray(logits, dtype=np.float64)
    t = np.asarray(targets).astype(np.int64)
    n, v = x.shape
    if t.shape != (n,) or t.min(initial=0) < 0 or t.max(initial=0) >= v:
        raise ValueError("every target must be in 0..V-1")
    hot = t[:, None] == np.arange(v)[None, :]
    target_logit = np.einsum("nv,nv->n", np.where(hot, x, 0.0), np.ones_like(x))
    m = np.where(hot, -1e30, x).max(axis=1)  # the max over the other classes ...
    m = np.maximum(m, target_logit)  # ... and the target: the row max
    lse = m + np.log(np.einsum("nv->n", np.exp(x - m[:, None])))
    return float((lse - target_logit).sum() / n)
