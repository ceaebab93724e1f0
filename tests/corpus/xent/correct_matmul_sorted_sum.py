# attnprep: xent
# expect: pass
# style: row maxima via np.sort, the sum of exponentials as a matmul with a ones vector, in place on a private copy,
#        targets picked with np.choose-free flat indexing; returns a 0-d array
import numpy as np


def cross_entropy(logits, targets):
    z = np.array(logits, dtype=np.float64, copy=True)  # private copy: in-place work is safe
    targets = np.asarray(targets)
    n, v = z.shape
    if np.any(targets < 0) or np.any(targets >= v):
        raise ValueError(f"targets must lie in [0, {v})")
    z -= np.sort(z, axis=1)[:, -1:]  # shift each row so its max is 0
    picked = z.ravel()[np.arange(n) * v + targets]
    z = np.exp(z, out=z)
    sums = z @ np.ones(v)
    return np.asarray(np.mean(np.log(sums) - picked))
